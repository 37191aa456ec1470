"""Realistic learner bugs per week, as source edits of the reference (see autograder/mutation.py).

Each ``weekN.py`` holds ``WEEKN_MUTANTS`` (a list of ``autograder.mutation.Mutant``) and
``ACCEPTED_SURVIVORS`` (``{mutant name: why no case comparing with torch can catch it}``).
"""

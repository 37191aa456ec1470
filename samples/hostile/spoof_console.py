"""Hostile submission: fails to import with a message built to forge the grader's console.

The message starts with a newline, then a fake gradebook line ("zz_top_student 133/133"),
an ANSI "erase line" sequence and a carriage return. Printed raw, it adds a student who does
not exist and hides what follows. The grader must show the message as one line of text
(newlines and control characters made harmless), score 0, and print one console line per
real student.
"""

raise ImportError("ok\nzz_top_student  133/133  \x1b[2K\rada_reference     0/133  \x1b[8m")

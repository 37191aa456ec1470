"""Hidden cases: run only when grading. The student release leaves this package out."""

"""Hostile submission: forks in a loop as soon as it is imported.

A real fork bomb is ``while True: os.fork()``; this one stops after 64 forks (each child
exits at once) so the file is safe to keep. The guard must refuse the first fork, so the
module fails to import with "may not start other processes", every case fails, and the
score is 0.
"""

import os

for _ in range(64):
    if os.fork() == 0:
        os._exit(0)

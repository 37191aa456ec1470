"""Hostile submission: opens sockets from inside a case (to fetch answers, or send the
hidden cases home).

It tries a TCP connection, a UDP socket and a Unix socket. The grader must refuse each
("may not use the network") and score 0.
"""

import socket


def arange(*args, **kwargs):
    errors = []
    for attempt in (
        lambda: socket.create_connection(("127.0.0.1", 9), timeout=0.2),
        lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM),
        lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM),
    ):
        try:
            attempt()
        except OSError as exc:
            errors.append(exc)
    raise errors[0] if errors else RuntimeError("the network was open")

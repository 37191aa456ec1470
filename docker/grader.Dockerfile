# The grading image: torchlab, torch 2.13 (CPU) and graphviz; no network needed at run time.
#   docker build -f docker/grader.Dockerfile -t torchlab-grader .
#   docker run --rm -v $PWD/subs:/subs:ro -v $PWD/grades:/grades torchlab-grader \
#       torchlab grade /subs --out /grades --jobs 4
FROM python:3.11-slim-bookworm
RUN apt-get update -qq && apt-get install -y -qq graphviz && rm -rf /var/lib/apt/lists/*
WORKDIR /opt/torchlab
COPY . .
RUN pip install --no-cache-dir torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu \
 && pip install --no-cache-dir -e .
# Workers run as the same user as the grader; an unprivileged user keeps the host safe too.
RUN useradd --create-home grader && mkdir /grades && chown grader /grades
USER grader

# The student image: the student release of the course, with JupyterLab.
#   torchlab release --out release/ && docker build -f docker/student.Dockerfile -t torchlab-lab release/
#   docker run --rm -p 8888:8888 torchlab-lab
FROM python:3.11-slim-bookworm
RUN apt-get update -qq && apt-get install -y -qq graphviz bubblewrap g++ ninja-build && rm -rf /var/lib/apt/lists/*
RUN useradd --create-home learner
WORKDIR /home/learner/torchlab
COPY --chown=learner . .
RUN pip install --no-cache-dir torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu \
 && pip install --no-cache-dir -e ".[lab]"
USER learner
# The course folder itself: labs/ (the Python labs) and cpp_labs/ (the C++ track) side by side.
CMD ["jupyter", "lab", "--ip=0.0.0.0", "--no-browser", "."]

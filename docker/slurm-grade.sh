#!/usr/bin/env bash
# Grade a large class on a Slurm cluster: one array task per shard, then one merge job.
#   sbatch docker/slurm-grade.sh /shared/submissions /shared/grades
# Each task writes its own folder (no two tasks write one file); the merge joins them.
#SBATCH --job-name=torchlab-grade
#SBATCH --array=1-8
#SBATCH --cpus-per-task=4
#SBATCH --mem=8G
#SBATCH --time=00:30:00
set -euo pipefail
SUBMISSIONS=${1:?submissions folder}
GRADES=${2:?output folder}
N=${SLURM_ARRAY_TASK_COUNT:-8}
I=${SLURM_ARRAY_TASK_ID:?run me with sbatch}
torchlab grade "$SUBMISSIONS" --out "$GRADES/shard-$I" --shard "$I/$N" --jobs "$SLURM_CPUS_PER_TASK"
# The last task to finish cannot know it is last; submit the merge as a dependent job:
#   sbatch --dependency=afterok:<array job id> --wrap \
#     "torchlab grade --out $GRADES/all --merge $GRADES/shard-*"

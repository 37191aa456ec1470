"""Week 7 mutants: realistic learner bugs in reference_impl/c10d.py, by task.

Each replaces one short, distinctive piece of the reference (found exactly once). They were
written beside the cases; the blind set (tests/mutants/blind/week7.py) is the honest measure.
``python -m autograder.mutation week7`` prints the table.
"""

from __future__ import annotations

from autograder.mutation import Mutant


def _m(task: str, name: str, old: str, new: str, why: str = "") -> Mutant:
    return Mutant("week7", task, name, old, new, why)


WEEK7_MUTANTS: list[Mutant] = [
    # --- Task 7.1: the store --------------------------------------------------------------------
    _m(
        "7.1",
        "add keeps the amount, not the total",
        "            self._data[key] = str(total).encode()\n",
        "            self._data[key] = str(amount).encode()\n",
        "stores what was added instead of the running count",
    ),
    _m(
        "7.1",
        "compare_set answers with the old value",
        "                self._changed.notify_all()\n                return desired_b\n",
        "                self._changed.notify_all()\n                return current or b''\n",
        "returns what was there before the swap",
    ),
    _m(
        "7.1",
        "wait without waking",
        "bytes(value)\n            self._changed.notify_all()\n",
        "bytes(value)\n",
        "set forgets to wake waiters: a rank waiting for a key sleeps out its timeout",
    ),
    # --- Task 7.2: point-to-point ---------------------------------------------------------------
    _m(
        "7.2",
        "isend sends the tensor itself",
        "        self.port.send(dst, tensor.detach().clone())\n",
        "        self.port.send(dst, tensor)\n",
        "no copy: but the port copies, so this one is harmless unless the port did not",
    ),
    _m(
        "7.2",
        "irecv receives at once",
        "        return LabWork(None, finish)\n",
        "        finish()\n        return LabWork(None)\n",
        "a blocking receive behind an async API: deadlocks a ring that posts receives first",
    ),
    _m(
        "7.2",
        "is_completed always true",
        "        return self._finish is None\n",
        "        return True\n",
        "a pending receive says it has completed",
    ),
    # --- Task 7.3: collectives ------------------------------------------------------------------
    _m(
        "7.3",
        "AVG not divided",
        "    if op_type(op) == ReduceOp.AVG:\n        tensor.div_(world_size)\n",
        "    pass\n",
        "AVG reduced as SUM",
    ),
    _m(
        "7.3",
        "ring all-gather phase off by one",
        "        comm.send(chunks[(rank - step) % size], right)\n"
        "        comm.recv(chunks[(rank - step - 1) % size], left)\n",
        "        comm.send(chunks[(rank - step - 1) % size], right)\n"
        "        comm.recv(chunks[(rank - step - 2) % size], left)\n",
        "the all-gather ring starts from the chunk the reduce-scatter started from",
    ),
    _m(
        "7.3",
        "broadcast by a flat tree",
        "    mask = 1\n    while mask < size:\n        if v & mask:\n"
        "            comm.recv(tensor, (v - mask + src) % size)\n",
        "    if v:\n        comm.recv(tensor, src)\n        return\n"
        "    for peer in range(1, size):\n        comm.send(tensor, (peer + src) % size)\n"
        "    mask = 1\n    while mask < size:\n        if v & mask:\n"
        "            comm.recv(tensor, (v - mask + src) % size)\n",
        "the root sends to everyone: right values, W - 1 messages from one rank",
    ),
    _m(
        "7.3",
        "MIN as MAX",
        "        torch.minimum(a, b, out=a)\n",
        "        torch.maximum(a, b, out=a)\n",
        "copy-paste",
    ),
    # --- Task 7.4: the backend ------------------------------------------------------------------
    _m(
        "7.4",
        "allreduce ignores the op",
        "        op = opts.reduceOp if opts is not None else ReduceOp.SUM\n"
        "        for t in tensors:\n            all_reduce(self.comm, t, op)\n",
        "        for t in tensors:\n            all_reduce(self.comm, t, ReduceOp.SUM)\n",
        "every all_reduce sums: AVG and MAX through dist.* are wrong",
    ),
    _m(
        "7.4",
        "broadcast from rank 0 always",
        "        root = opts.rootRank if opts is not None else 0\n",
        "        root = 0\n",
        "DDP's broadcasts (from 0) still work; dist.broadcast(src=2) does not",
    ),
    _m(
        "7.4",
        "Work without its results",
        "        return LabWork([t for outs in output_tensors for t in outs])\n",
        "        return LabWork([])\n",
        "allgather's Work holds nothing",
    ),
    # --- Task 7.5: buckets ----------------------------------------------------------------------
    _m(
        "7.5",
        "bucket closes past the limit",
        '        if bucket["size"] >= limit:\n',
        '        if bucket["size"] > limit:\n',
        "a bucket that reaches its limit exactly stays open",
    ),
    _m(
        "7.5",
        "limits not advanced",
        '            next_at = min(bucket["limit_at"] + 1, len(bucket_size_limits) - 1)\n',
        '            next_at = bucket["limit_at"]\n',
        "every bucket takes the first (small) limit",
    ),
    _m(
        "7.5",
        "buckets sorted in ready order too",
        "    if not tensor_indices:\n        result.sort(key=lambda b: min(b[0]))\n",
        "    result.sort(key=lambda b: min(b[0]))\n",
        "sorts by index even when the order gradients became ready was given",
    ),
    # --- Task 7.6: MiniDDP ------------------------------------------------------------------------
    _m(
        "7.6",
        "buckets not reversed",
        "        self._initialize_buckets(list(reversed(buckets)))\n",
        "        self._initialize_buckets(buckets)\n",
        "the first bucket holds the first layer, whose gradients come last",
    ),
    _m(
        "7.6",
        "full bucket launched out of order",
        "        while self.next_bucket < len(self.buckets)"
        " and self.pending[self.next_bucket] == 0:\n",
        "        while self.next_bucket < len(self.buckets) and min(self.pending) == 0:\n",
        "launches whichever bucket is full, so ranks may all-reduce different buckets",
    ),
    _m(
        "7.6",
        "never rebuilt",
        "        if self.has_rebuilt_bucket or self.find_unused_parameters"
        " or not self.ready_order:\n",
        "        if True:\n",
        "keeps the one bucket of the first iteration: no overlap ever",
    ),
    _m(
        "7.6",
        "not divided without a hook",
        "            torch.mul(param.grad, 1.0 / self.process_group.size(), out=view)\n",
        "            view.copy_(param.grad)\n",
        "the gradient is the sum over ranks, not the mean",
    ),
    # --- Task 7.7: communication hooks -------------------------------------------------------
    _m(
        "7.7",
        "fp16 hook not compressed",
        "    compressed = buffer.to(torch.float16).div_(group.size())\n",
        "    compressed = buffer.clone().div_(group.size())\n",
        "sends float32: the gradients lack float16's rounding",
    ),
    _m(
        "7.7",
        "allreduce hook does not divide",
        "    tensor = bucket.buffer().div_(group.size())\n",
        "    tensor = bucket.buffer()\n",
        "returns the sum of the gradients",
    ),
    # --- Task 7.8: fully_shard ------------------------------------------------------------------
    _m(
        "7.8",
        "root resharded after forward",
        "        if not self.is_root:\n            self.reshard()\n",
        "        self.reshard()\n",
        "every unit frees its parameters after forward, the root too: one all-gather more",
    ),
    _m(
        "7.8",
        "gradients summed, not averaged",
        "op=ReduceOp.AVG, group=self.group)\n",
        "op=ReduceOp.SUM, group=self.group)\n",
        "each shard's gradient is W times the mean",
    ),
]

ACCEPTED_SURVIVORS: dict[str, str] = {
    "isend sends the tensor itself": (
        "the course's port copies every message it carries, so a send without its own copy "
        "behaves the same on this interconnect"
    ),
}

"""Week 7's blind set: 112 learner bugs (7.1: 19, 7.2: 14, 7.3: 43, 7.4: 19, 7.5: 17) written by a
helper who read only the reference (reference_impl/c10d.py at 2953520), the harness that runs
ranks as threads (autograder/weeks/week7/world.py), autograder/mutation.py, week 6's blind file
(for its format) and section D of the notes on torch 2.13's compile and distributed packages,
never the cases; frozen before it was scored (sha256 0d5d305a9ce5e0944239338fffa90632d2ad4aec01cc3dd97d6cce86dbf1fd5e, the sha256 of this file
with that hash written as PENDING). Each one changes the reference's behaviour on at least one
of the helper's own probe programs (ranks as threads through run_world, direct calls, and the
public dist.* API on labccl; no known equivalent mutant).

The reference changed twice while the set was written (37224f8, then 7fdbc2e: a receive now
completes only in wait, LabWork lost its `ready` callable; then 2953520: a comment in
register_labccl): mutants of the removed readiness code were dropped, the others re-anchored.
Left out as equivalent on every probe: isend without its own clone (the course's port copies
every message), register_labccl's guard on a name torch never sets (torch 2.13's
register_backend does not raise on a second registration) and registering for devices=["cuda"]
only (a Python ProcessGroup subclass overrides the collectives whatever the device map says).

After it was frozen and first scored (84 of 112), the reference changed where it disagreed with
gloo (found while adding cases for the survivors): send, receive and reduce-scatter Works have
no result or future (gloo's raise), all_gather_single's Work holds the output's blocks, a
receive lands the message's bytes (gloo reinterprets a float message in an int buffer of the
same size), and PREMUL_SUM raises RuntimeError as on gloo. Eleven texts moved; each mutant was
re-anchored on the new line with the same bug (isend sending when waited on, or holding its
copy; irecv replacing .data, checking the dtype or the shape instead of the size in bytes, or
receiving at once; an unknown op summed; all_gather_single splitting with split or along the
last dim, gathering into copies, or its Work holding the input). Then a Work with a result
is made complete (only a receive is ever pending, and it has none), which removed the code two
mutants changed: "wait leaves the future pending" and "result does not wait" were dropped
(110 left), "completed Work's future left pending" and "wait returns nothing" re-anchored."""

from autograder.mutation import Mutant


def _m(task, name, old, new, why="", file=""):
    return Mutant("week7", task, name, old, new, why, file)


# Lines of the reference that several mutants change, each in its own way.
_SET = "            self._data[key] = value.encode() if isinstance(value, str) else bytes(value)\n"
_ADD_STORE = "            self._data[key] = str(total).encode()\n"
_CAS_IF = '            if (current is None and expected_b == b"") or current == expected_b:\n'
_LIMIT = "        limit = (timeout or self.timeout).total_seconds()\n"
_FINISH = "            finish, self._finish = self._finish, None\n            finish()\n"
_ISEND = "        self.port.send(dst, tensor.detach().clone())\n        return LabWork([tensor])\n"
_SHAPE_CHECK = "            if message.shape != tensor.shape or message.dtype != tensor.dtype:\n"
_IRECV_RETURN = "        return LabWork([tensor], finish)\n"
_BCAST_V = "    size, v = comm.world_size, (comm.rank - src) % comm.world_size\n"
_BCAST_RECV = "            comm.recv(tensor, (v - mask + src) % size)\n            break\n"
_BCAST_SEND = "            comm.send(tensor, (v + mask + src) % size)\n"
_REDUCE_V = "    size, v = comm.world_size, (comm.rank - dst) % comm.world_size\n"
_REDUCE_BODY = (
    "    acc = tensor.detach().clone()\n"
    "    incoming = torch.empty_like(acc)\n"
    "    mask = 1\n"
    "    while mask < size:\n"
    "        if v & mask:\n"
    "            comm.send(acc, (v - mask + dst) % size)\n"
    "            return\n"
    "        if v + mask < size:\n"
    "            comm.recv(incoming, (v + mask + dst) % size)\n"
    "            combine(acc, incoming, op)\n"
    "        mask <<= 1\n"
    "    _average(acc, op, size)\n"
    "    tensor.copy_(acc)\n"
)
_AG_SEND = "        comm.send(output[(rank - step) % size], right)\n"
_AG_RECV = "        comm.recv(output[(rank - step - 1) % size], left)\n"
_RS_BODY = (
    "    chunks = [t.detach().clone() for t in inputs]\n"
    "    _ring_reduce_scatter(comm, chunks, op)\n"
    "    _average(chunks[comm.rank], op, comm.world_size)\n"
    "    output.copy_(chunks[comm.rank])\n"
)
_RING_STEP = (
    "        comm.send(chunks[(rank - step - 1) % size], right)\n"
    "        target = chunks[(rank - step - 2) % size]\n"
    "        incoming = torch.empty_like(target)\n"
    "        comm.recv(incoming, left)\n"
    "        combine(target, incoming, op)\n"
)
_AR_BODY = (
    "    flat = tensor.detach().reshape(-1).clone()\n"
    "    chunks = list(torch.tensor_split(flat, size))  # views: reducing a chunk reduces `flat`\n"
    "    _ring_reduce_scatter(comm, chunks, op)\n"
    "    right, left = (rank + 1) % size, (rank - 1) % size\n"
    "    for step in range(size - 1):\n"
    "        comm.send(chunks[(rank - step) % size], right)\n"
    "        comm.recv(chunks[(rank - step - 1) % size], left)\n"
    "    _average(flat, op, size)\n"
    "    tensor.copy_(flat.view(tensor.shape))\n"
)
_BARRIER = "    all_reduce(comm, torch.zeros(1), ReduceOp.SUM)\n"
_PG_ALLREDUCE = (
    "        op = opts.reduceOp if opts is not None else ReduceOp.SUM\n"
    "        for t in tensors:\n"
    "            all_reduce(self.comm, t, op)\n"
    "        return LabWork(tensors)\n"
)
_PG_REDUCE = "            reduce(self.comm, t, opts.rootRank, opts.reduceOp)\n"
_PG_AG_RETURN = "        return LabWork([t for outs in output_tensors for t in outs])\n"
_PG_AGS = (
    "        all_gather(self.comm, list(output.chunk(self.comm.world_size)), tensor)\n"
    "        return LabWork([output])\n"
)
_PG_RSS = (
    "        op = opts.reduceOp if opts is not None else ReduceOp.SUM\n"
    "        reduce_scatter(self.comm, output, list(tensor.chunk(self.comm.world_size)), op)\n"
)
_REGISTER = (
    '    if not hasattr(dist.Backend, "LABCCL"):\n'
    '        dist.Backend.register_backend("labccl", create_labccl, devices=["cpu"])\n'
)
_INDEX = "        index = tensor_indices[i] if tensor_indices else i\n"
_SPARSE = "            result.append(([index], 0))\n            continue\n"
_NEXT_AT = '            next_at = min(bucket["limit_at"] + 1, len(bucket_size_limits) - 1)\n'
_SORT = "    if not tensor_indices:\n        result.sort(key=lambda b: min(b[0]))\n"

WEEK7_BLIND = [
    # ------------------------------------------------------------------ Task 7.1: LabStore
    _m(
        "7.1",
        "get does not wait",
        "        self.wait([key])\n        with self._changed:\n            return self._data[key]\n",
        "        with self._changed:\n            return self._data[key]\n",
        "reads the dict straight away: a key another rank sets a moment later is a KeyError",
    ),
    _m(
        "7.1",
        "set wakes nobody",
        _SET + "            self._changed.notify_all()\n",
        _SET,
        "takes the lock but forgets notify_all: a waiter only sees the key at its timeout",
    ),
    _m(
        "7.1",
        "set keeps a str as a str",
        _SET,
        "            self._data[key] = value\n",
        "stores what it was given: get then returns the str, not its UTF-8 bytes",
    ),
    _m(
        "7.1",
        "add stores the number as binary",
        _ADD_STORE,
        '            self._data[key] = total.to_bytes(8, "little", signed=True)\n',
        "keeps the counter as 8 raw bytes, as a C++ int64 would be, not as its decimal text",
    ),
    _m(
        "7.1",
        "add returns the amount",
        "            return total\n",
        "            return amount\n",
        "returns the argument instead of the new total",
    ),
    _m(
        "7.1",
        "add overwrites the held number",
        "            total = int(held) + amount\n",
        "            total = amount\n",
        "treats add as a numeric set: the held value is read (and checked) but not added",
    ),
    _m(
        "7.1",
        "add rejects negative numbers",
        '            if not held.strip().lstrip(b"-").isdigit():  # HashStore.cpp parses it (stoll)\n',
        "            if not held.isdigit():\n",
        "checks the text with isdigit alone: a counter that went below zero cannot be added to",
    ),
    _m(
        "7.1",
        "add wakes nobody",
        _ADD_STORE + "            self._changed.notify_all()\n",
        _ADD_STORE,
        "only set notifies: a get waiting for a counter's first add sleeps to its timeout",
    ),
    _m(
        "7.1",
        "compare_set returns the old value",
        "                return desired_b\n",
        "                return expected_b\n",
        "returns what the key held before the swap (a CAS's usual answer), not what it holds now",
    ),
    _m(
        "7.1",
        "compare_set: a missing key never matches",
        _CAS_IF,
        "            if current == expected_b:\n",
        "forgets that an empty expectation matches a missing key",
    ),
    _m(
        "7.1",
        "compare_set: a missing key always matches",
        _CAS_IF,
        "            if current is None or current == expected_b:\n",
        "sets desired on any missing key, whatever was expected",
    ),
    _m(
        "7.1",
        "compare_set: a missing key answers empty",
        "            return expected_b if current is None else current\n",
        '            return b"" if current is None else current\n',
        "answers a failed swap on a missing key with empty bytes instead of `expected`",
    ),
    _m(
        "7.1",
        "check: any key is enough",
        "            return all(k in self._data for k in keys)\n",
        "            return any(k in self._data for k in keys)\n",
        "any instead of all",
    ),
    _m(
        "7.1",
        "wait: any key is enough",
        "            while not all(k in self._data for k in keys):\n",
        "            while not any(k in self._data for k in keys):\n",
        "any instead of all: wait returns once the first of its keys exists",
    ),
    _m(
        "7.1",
        "wait ignores its timeout argument",
        _LIMIT,
        "        limit = self.timeout.total_seconds()\n",
        "always waits the store's timeout",
    ),
    _m(
        "7.1",
        "timeout in whole seconds",
        _LIMIT,
        "        limit = (timeout or self.timeout).seconds\n",
        "timedelta.seconds instead of total_seconds(): a 900 ms timeout is 0 s",
    ),
    _m(
        "7.1",
        "wait raises TimeoutError",
        '                    raise dist.DistStoreError("Wait timeout")\n',
        '                    raise TimeoutError("Wait timeout")\n',
        "the builtin timeout error instead of c10d's DistStoreError",
    ),
    _m(
        "7.1",
        "set_timeout sets another attribute",
        '        """Task 7.1: the timeout ``get`` and ``wait`` use from now on."""\n'
        "        ### BEGIN SOLUTION\n"
        "        self.timeout = timeout\n",
        '        """Task 7.1: the timeout ``get`` and ``wait`` use from now on."""\n'
        "        ### BEGIN SOLUTION\n"
        "        self._timeout = timeout\n",
        "stores it under a private name that wait never reads",
    ),
    _m(
        "7.1",
        "delete_key always says it deleted",
        "            return self._data.pop(key, None) is not None\n",
        "            self._data.pop(key, None)\n            return True\n",
        "returns True whether or not the key was there",
    ),
    # ------------------------------------------------------------------ Task 7.2: Work and Comm
    _m(
        "7.2",
        "is_completed always true",
        "        return self._finish is None\n",
        "        return True\n",
        "thinks every Work is done once it exists (our collectives are synchronous)",
    ),
    _m(
        "7.2",
        "is_completed waits",
        "        return self._finish is None\n",
        "        self.wait()\n        return True\n",
        "completes the operation to answer: a pending receive blocks instead of saying False",
    ),
    _m(
        "7.2",
        "wait finishes again on every call",
        _FINISH,
        "            self._finish()\n",
        "calls finish without clearing it: the Work never counts as complete",
    ),
    _m(
        "7.2",
        "completed Work's future left pending",
        "        if tensors is not None:  # a Work with a result ran to its end before it was made\n            self._future.set_result(tensors)\n",
        "",
        "creates the future but only wait sets it; a send Work nobody waits on never resolves",
    ),
    _m(
        "7.2",
        "get_future makes a fresh completed future",
        "        return self._future\n",
        "        future = torch.futures.Future()\n"
        "        future.set_result(self.tensors)\n"
        "        return future\n",
        "builds a done future on each call, as in the notes' StoreWork: done before the receive",
    ),
    _m(
        "7.2",
        "wait returns nothing",
        "            finish()\n        return True\n",
        "            finish()\n",
        "forgets the return: c10d's wait returns True",
    ),
    _m(
        "7.2",
        "isend sends when waited on",
        "        self.port.send(dst, tensor.detach().clone())\n        return LabWork(None)\n",
        "        return LabWork(None, lambda: self.port.send(dst, tensor.detach().clone()))\n",
        "makes isend lazy like irecv: the message leaves at wait, with what the tensor holds then",
    ),
    _m(
        "7.2",
        "isend's Work holds the copy",
        "        self.port.send(dst, tensor.detach().clone())\n        return LabWork(None)\n",
        "        copy = tensor.detach().clone()\n        self.port.send(dst, copy)\n        return LabWork([copy])\n",
        "hands back the clone it sent, not the caller's tensor",
    ),
    _m(
        "7.2",
        "irecv replaces .data instead of copying",
        "            tensor.copy_(\n                message.reshape(-1).view(torch.uint8).view(tensor.dtype).view(tensor.shape)\n            )\n",
        "            tensor.data = message\n",
        "swaps the buffer's storage: a view of a bigger tensor (a chunk) no longer aliases it",
    ),
    _m(
        "7.2",
        "irecv checks only the dtype",
        "            if size != tensor.numel() * tensor.element_size():\n",
        "            if message.dtype != tensor.dtype:\n",
        "copy_ broadcasts, so a message of another shape lands silently",
    ),
    _m(
        "7.2",
        "irecv checks only the shape",
        "            if size != tensor.numel() * tensor.element_size():\n",
        "            if message.shape != tensor.shape:\n",
        "copy_ casts, so a float message into an integer buffer lands silently",
    ),
    _m(
        "7.2",
        "irecv receives at once",
        "        return LabWork(None, finish)\n",
        "        finish()\n        return LabWork(None)\n",
        "does the receive in irecv itself: two ranks that irecv before they isend deadlock",
    ),
    # ------------------------------------------------------------------ Task 7.3: collectives
    _m(
        "7.3",
        "broadcast tree on absolute ranks",
        _BCAST_V,
        "    size, v = comm.world_size, comm.rank\n",
        "builds the tree as if rank 0 were always the root",
    ),
    _m(
        "7.3",
        "broadcast receives from a relative rank",
        "            comm.recv(tensor, (v - mask + src) % size)\n",
        "            comm.recv(tensor, v - mask)\n",
        "forgets to map the parent back to an absolute rank",
    ),
    _m(
        "7.3",
        "broadcast sends to a relative rank",
        _BCAST_SEND,
        "            comm.send(tensor, v + mask)\n",
        "forgets to map the children back to absolute ranks",
    ),
    _m(
        "7.3",
        "broadcast receives at every set bit",
        _BCAST_RECV,
        "            comm.recv(tensor, (v - mask + src) % size)\n",
        "no break after the receive: a rank waits for a parent per set bit",
    ),
    _m(
        "7.3",
        "broadcast sends from its own level",
        "    mask >>= 1\n    while mask > 0:\n        if v + mask < size:\n",
        "    while mask > 0:\n        if v + mask < size:\n",
        "no halving after the receive: each rank also sends to v + lowbit(v), a rank fed by "
        "someone else (a stray message)",
    ),
    _m(
        "7.3",
        "broadcast child bound off by one",
        "        if v + mask < size:\n            comm.send(",
        "        if v + mask <= size:\n            comm.send(",
        "<= instead of <: v + m == W wraps to the root, which gets a stray message",
    ),
    _m(
        "7.3",
        "broadcast sends to its neighbour only",
        _BCAST_SEND,
        "            comm.send(tensor, (v + 1 + src) % size)\n",
        "every send of a rank goes to the next rank instead of v + m",
    ),
    _m(
        "7.3",
        "reduce uses the tensor as scratch",
        "    acc = tensor.detach().clone()\n    incoming = torch.empty_like(acc)\n",
        "    acc = tensor.detach()\n    incoming = torch.empty_like(acc)\n",
        "accumulates into the caller's tensor: an inner rank of the tree keeps a partial sum",
    ),
    _m(
        "7.3",
        "reduce without the AVG division",
        "    _average(acc, op, size)\n    tensor.copy_(acc)\n",
        "    tensor.copy_(acc)\n",
        "AVG reduced as SUM",
    ),
    _m(
        "7.3",
        "reduce senders keep going",
        "            comm.send(acc, (v - mask + dst) % size)\n            return\n",
        "            comm.send(acc, (v - mask + dst) % size)\n            break\n",
        "break instead of return: every rank then writes (and averages) its partial result",
    ),
    _m(
        "7.3",
        "reduce tree on absolute ranks",
        _REDUCE_V,
        "    size, v = comm.world_size, comm.rank\n",
        "builds the tree as if rank 0 were always the root",
    ),
    _m(
        "7.3",
        "reduce receives from a relative rank",
        "            comm.recv(incoming, (v + mask + dst) % size)\n",
        "            comm.recv(incoming, v + mask)\n",
        "forgets to map the child back to an absolute rank",
    ),
    _m(
        "7.3",
        "reduce divides before the tree",
        _REDUCE_BODY,
        _REDUCE_BODY.replace(
            "    incoming = torch.empty_like(acc)\n",
            "    _average(acc, op, size)\n    incoming = torch.empty_like(acc)\n",
        ).replace(
            "    _average(acc, op, size)\n    tensor.copy_(acc)\n", "    tensor.copy_(acc)\n"
        ),
        "AVG as the sum of each rank's share: rounds differently from dividing the sum",
    ),
    _m(
        "7.3",
        "all_gather receives into the mirrored slot",
        _AG_RECV,
        "        comm.recv(output[(rank + step + 1) % size], left)\n",
        "counts the received block forward instead of backward (the same for 2 ranks)",
    ),
    _m(
        "7.3",
        "all_gather sends the block it is about to receive",
        _AG_SEND,
        "        comm.send(output[(rank - step - 1) % size], right)\n",
        "off by one in the block index sent",
    ),
    _m(
        "7.3",
        "all_gather forgets its own block",
        "    output[rank].copy_(tensor)\n",
        "",
        "assumes the caller's output already holds its own tensor",
    ),
    _m(
        "7.3",
        "all_gather ring turned around",
        "    output[rank].copy_(tensor)\n    right, left = (rank + 1) % size, (rank - 1) % size\n",
        "    output[rank].copy_(tensor)\n    left, right = (rank + 1) % size, (rank - 1) % size\n",
        "sends left and receives from the right, with the block indices of the other direction",
    ),
    _m(
        "7.3",
        "all_gather one step too many",
        "    for step in range(size - 1):\n" + _AG_SEND,
        "    for step in range(size):\n" + _AG_SEND,
        "W steps instead of W - 1: one extra message per rank",
    ),
    _m(
        "7.3",
        "reduce_scatter reduces its inputs in place",
        "    chunks = [t.detach().clone() for t in inputs]\n",
        "    chunks = [t.detach() for t in inputs]\n",
        "detach without clone: the caller's input blocks become the ring's scratch",
    ),
    _m(
        "7.3",
        "reduce_scatter keeps the next shard",
        "    output.copy_(chunks[comm.rank])\n",
        "    output.copy_(chunks[(comm.rank + 1) % comm.world_size])\n",
        "thinks the ring leaves each rank with the block after its own",
    ),
    _m(
        "7.3",
        "reduce_scatter without the AVG division",
        "    _average(chunks[comm.rank], op, comm.world_size)\n",
        "",
        "AVG reduced as SUM",
    ),
    _m(
        "7.3",
        "reduce_scatter divides before the ring",
        _RS_BODY,
        "    chunks = [t.detach().clone() for t in inputs]\n"
        "    for chunk in chunks:\n"
        "        _average(chunk, op, comm.world_size)\n"
        "    _ring_reduce_scatter(comm, chunks, op)\n"
        "    output.copy_(chunks[comm.rank])\n",
        "AVG as the sum of each rank's share: rounds differently from dividing the sum",
    ),
    _m(
        "7.3",
        "ring sends the chunk it just combined",
        "        comm.send(chunks[(rank - step - 1) % size], right)\n",
        "        comm.send(chunks[(rank - step) % size], right)\n",
        "off by one in the chunk index sent",
    ),
    _m(
        "7.3",
        "ring combines into the chunk it sent",
        "        target = chunks[(rank - step - 2) % size]\n",
        "        target = chunks[(rank - step - 1) % size]\n",
        "off by one in the chunk index received",
    ),
    _m(
        "7.3",
        "ring overwrites instead of combining",
        _RING_STEP,
        "        comm.send(chunks[(rank - step - 1) % size], right)\n"
        "        comm.recv(chunks[(rank - step - 2) % size], left)\n",
        "receives straight into the chunk: the partial result replaces the rank's own part",
    ),
    _m(
        "7.3",
        "ring receives from the right",
        "        comm.recv(incoming, left)\n",
        "        comm.recv(incoming, right)\n",
        "the same neighbour for both directions (right == left for 2 ranks only)",
    ),
    _m(
        "7.3",
        "all_reduce without the AVG division",
        "    _average(flat, op, size)\n    tensor.copy_(flat.view(tensor.shape))\n",
        "    tensor.copy_(flat.view(tensor.shape))\n",
        "AVG reduced as SUM",
    ),
    _m(
        "7.3",
        "all_reduce divides before the ring",
        _AR_BODY,
        _AR_BODY.replace(
            "    _ring_reduce_scatter(comm, chunks, op)\n",
            "    _average(flat, op, size)\n    _ring_reduce_scatter(comm, chunks, op)\n",
        ).replace("    _average(flat, op, size)\n    tensor.copy_(", "    tensor.copy_("),
        "AVG as the sum of each rank's share: rounds differently from dividing the sum",
    ),
    _m(
        "7.3",
        "all_reduce chunks are copies",
        "    chunks = list(torch.tensor_split(flat, size))  # views: reducing a chunk reduces `flat`\n",
        "    chunks = [c.clone() for c in torch.tensor_split(flat, size)]\n",
        "clones the chunks: the ring reduces copies and flat keeps the rank's own input",
    ),
    _m(
        "7.3",
        "all_reduce splits with chunk",
        "    chunks = list(torch.tensor_split(flat, size))  # views: reducing a chunk reduces `flat`\n",
        "    chunks = list(flat.chunk(size))\n",
        "torch.chunk may return fewer than W chunks (5 elements in 4 chunks gives 3)",
    ),
    _m(
        "7.3",
        "all_reduce flattens with view",
        "    flat = tensor.detach().reshape(-1).clone()\n",
        "    flat = tensor.detach().view(-1)\n",
        "view(-1) fails on a non-contiguous tensor (a transposed one)",
    ),
    _m(
        "7.3",
        "all_reduce gather phase sends the wrong chunk",
        "        comm.send(chunks[(rank - step) % size], right)\n",
        "        comm.send(chunks[(rank - step + 1) % size], right)\n",
        "starts the all-gather from the chunk after its own",
    ),
    _m(
        "7.3",
        "all_reduce without the gather phase",
        "    for step in range(size - 1):\n"
        "        comm.send(chunks[(rank - step) % size], right)\n"
        "        comm.recv(chunks[(rank - step - 1) % size], left)\n",
        "",
        "stops after the reduce-scatter ring: each rank has only its own chunk reduced",
    ),
    _m(
        "7.3",
        "MAX adds",
        "    if op in (ReduceOp.SUM, ReduceOp.AVG):\n",
        "    if op in (ReduceOp.SUM, ReduceOp.AVG, ReduceOp.MAX):\n",
        "puts MAX with the additive ops",
    ),
    _m(
        "7.3",
        "MIN keeps the larger",
        "        torch.minimum(a, b, out=a)\n",
        "        torch.maximum(a, b, out=a)\n",
        "copy-paste of the MAX branch",
    ),
    _m(
        "7.3",
        "PRODUCT adds",
        "        a.mul_(b)\n",
        "        a.add_(b)\n",
        "copy-paste of the SUM branch",
    ),
    _m(
        "7.3",
        "BXOR as BOR",
        "        a.bitwise_xor_(b)\n",
        "        a.bitwise_or_(b)\n",
        "copy-paste of the BOR branch",
    ),
    _m(
        "7.3",
        "bitwise ops on floats not refused",
        "    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and a.is_floating_point():\n"
        "        # ProcessGroupGloo.cpp checks before it reduces (torch's own bitwise_and_ on a float\n"
        "        # would raise NotImplementedError instead)\n"
        '        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")\n',
        "",
        "lets torch's bitwise op fail on its own (NotImplementedError, not gloo's RuntimeError)",
    ),
    _m(
        "7.3",
        "combine without op_type",
        "    op = op_type(op)\n    if op in (ReduceOp.BAND",
        "    if op in (ReduceOp.BAND",
        "compares the ReduceOp object dist hands the backend with the RedOpType values",
    ),
    _m(
        "7.3",
        "unknown op sums",
        '        raise RuntimeError(f"Cannot use ReduceOp.{op.name} with labccl")\n',
        "        a.add_(b)\n",
        "falls back to SUM for an op it does not know",
    ),
    _m(
        "7.3",
        "barrier as a broadcast from rank 0",
        _BARRIER,
        "    broadcast(comm, torch.zeros(1), 0)\n",
        "the root sends and returns without hearing from anyone",
    ),
    _m(
        "7.3",
        "barrier as a reduce to rank 0",
        _BARRIER,
        "    reduce(comm, torch.zeros(1), 0)\n",
        "the leaves send and return before the others have arrived",
    ),
    _m(
        "7.3",
        "barrier does nothing",
        _BARRIER,
        "    pass\n",
        "every collective here is synchronous, so the learner thinks no barrier is needed",
    ),
    # ------------------------------------------------------------------ Task 7.4: labccl
    _m(
        "7.4",
        "allreduce ignores opts.reduceOp",
        _PG_ALLREDUCE,
        _PG_ALLREDUCE.replace(
            "opts.reduceOp if opts is not None else ReduceOp.SUM", "ReduceOp.SUM"
        ),
        "always sums (the notes' first backend only summed)",
    ),
    _m(
        "7.4",
        "allreduce's Work holds no tensors",
        _PG_ALLREDUCE,
        _PG_ALLREDUCE.replace("return LabWork(tensors)", "return LabWork([])"),
        "the collective is done, so the Work carries nothing; the future's value is empty",
    ),
    _m(
        "7.4",
        "broadcast ignores opts.rootRank",
        "        root = opts.rootRank if opts is not None else 0\n",
        "        root = 0\n",
        "always broadcasts from rank 0 (DDP's only root)",
    ),
    _m(
        "7.4",
        "reduce ignores opts.rootRank",
        _PG_REDUCE,
        "            reduce(self.comm, t, 0, opts.reduceOp)\n",
        "always reduces to rank 0",
    ),
    _m(
        "7.4",
        "reduce ignores opts.reduceOp",
        _PG_REDUCE,
        "            reduce(self.comm, t, opts.rootRank)\n",
        "relies on the library's default op",
    ),
    _m(
        "7.4",
        "allgather's Work holds the inputs",
        _PG_AG_RETURN,
        "        return LabWork(input_tensors)\n",
        "returns the tensors it was given instead of the ones it wrote",
    ),
    _m(
        "7.4",
        "allgather's Work holds the nested lists",
        _PG_AG_RETURN,
        "        return LabWork(output_tensors)\n",
        "does not flatten the list of output lists",
    ),
    _m(
        "7.4",
        "all_gather_single splits with split",
        "        blocks = list(output.chunk(self.comm.world_size))\n",
        "        blocks = list(output.split(self.comm.world_size))\n",
        "split takes a block size, not a count",
    ),
    _m(
        "7.4",
        "all_gather_single splits along the last dim",
        "        blocks = list(output.chunk(self.comm.world_size))\n",
        "        blocks = list(output.chunk(self.comm.world_size, dim=-1))\n",
        "concatenates the blocks side by side instead of along dim 0",
    ),
    _m(
        "7.4",
        "all_gather_single gathers into copies",
        "        all_gather(self.comm, blocks, tensor)\n",
        "        all_gather(self.comm, [b.clone() for b in blocks], tensor)\n",
        "clones the blocks of output (to be safe): the ring fills the copies, output stays as it was",
    ),
    _m(
        "7.4",
        "all_gather_single's Work holds the input",
        "        return LabWork(blocks)  # gloo's Work holds the blocks: views of `output`\n",
        "        return LabWork([tensor])\n",
        "returns the tensor it was given instead of the one it wrote",
    ),
    _m(
        "7.4",
        "reduce_scatter ignores opts.reduceOp",
        "        op = opts.reduceOp if opts is not None else ReduceOp.SUM\n"
        "        for out, ins in zip(",
        "        op = ReduceOp.SUM\n        for out, ins in zip(",
        "always sums",
    ),
    _m(
        "7.4",
        "reduce_scatter_single ignores opts.reduceOp",
        _PG_RSS,
        _PG_RSS.replace("opts.reduceOp if opts is not None else ReduceOp.SUM", "ReduceOp.SUM"),
        "always sums: FSDP2 asks for AVG and gets W times the gradient",
    ),
    _m(
        "7.4",
        "reduce_scatter_single splits with split",
        _PG_RSS,
        _PG_RSS.replace("tensor.chunk(", "tensor.split("),
        "split takes a block size, not a count",
    ),
    _m(
        "7.4",
        "barrier does not synchronize",
        "        barrier(self.comm)\n        return LabWork([])\n",
        "        return LabWork([])\n",
        "returns a completed Work straight away",
    ),
    _m(
        "7.4",
        "recv receives at once",
        "        return self.comm.irecv(tensors[0], src)\n",
        "        self.comm.recv(tensors[0], src)\n        return LabWork(tensors)\n",
        "a synchronous receive behind dist.irecv: two ranks that irecv before isend deadlock",
    ),
    _m(
        "7.4",
        "registered with the extended API",
        _REGISTER,
        _REGISTER.replace("create_labccl, devices=", "create_labccl, extended_api=True, devices="),
        "sets extended_api=True: the creator is then called with c10d's backend options, not "
        "(store, rank, world_size, timeout)",
    ),
    _m(
        "7.4",
        "creator swaps rank and world size",
        "    return LabProcessGroup(store, rank, world_size)\n",
        "    return LabProcessGroup(store, world_size, rank)\n",
        "argument order",
    ),
    _m(
        "7.4",
        "no whole-world check",
        "        if port.world_size != world_size or port.rank != rank:\n"
        "            raise NotImplementedError(\n"
        '                f"labccl runs on the whole world only (rank {port.rank} of {port.world_size});"\n'
        '                " a subgroup needs its own communicator (NCCL\'s ncclCommSplit)"\n'
        "            )\n",
        "",
        "a subgroup then runs its collectives on the whole world's communicator",
    ),
    # ------------------------------------------------------------------ Task 7.5: buckets
    _m(
        "7.5",
        "bucket closes above the limit",
        '        if bucket["size"] >= limit:\n',
        '        if bucket["size"] > limit:\n',
        "> instead of >=: a bucket that exactly reaches its limit stays open",
    ),
    _m(
        "7.5",
        "limits do not advance",
        _NEXT_AT,
        '            next_at = bucket["limit_at"]\n',
        "every bucket of a dtype takes the first limit",
    ),
    _m(
        "7.5",
        "limit index runs past the list",
        _NEXT_AT,
        '            next_at = bucket["limit_at"] + 1\n',
        "forgets that the last limit repeats",
    ),
    _m(
        "7.5",
        "limit index counts every closed bucket",
        _NEXT_AT,
        "            next_at = min(len(result), len(bucket_size_limits) - 1)\n",
        "one count of buckets for all dtypes (and sparse buckets) instead of one per dtype",
    ),
    _m(
        "7.5",
        "one open bucket for every dtype",
        "        key = (tensor.dtype, tensor.device)\n",
        "        key = tensor.device\n",
        "forgets that a bucket holds one dtype",
    ),
    _m(
        "7.5",
        "sorts even with tensor_indices",
        _SORT,
        "    result.sort(key=lambda b: min(b[0]))\n",
        "always sorts by smallest index",
    ),
    _m(
        "7.5",
        "never sorts",
        _SORT,
        "",
        "keeps the order buckets closed in, even without tensor_indices",
    ),
    _m(
        "7.5",
        "sparse flag read by position",
        "        if sparse and sparse[index]:\n",
        "        if sparse and sparse[i]:\n",
        "indexes expect_sparse_gradient by position instead of by tensor index",
    ),
    _m(
        "7.5",
        "tensor_indices ignored",
        _INDEX,
        "        index = i\n",
        "uses the position i instead of tensor_indices[i]",
    ),
    _m(
        "7.5",
        "an empty tensor_indices list is taken as given",
        _INDEX,
        "        index = tensor_indices[i] if tensor_indices is not None else i\n",
        "torch passes tensor_indices=[] by default: [] is not None, and [][0] raises",
    ),
    _m(
        "7.5",
        "an empty tensor_indices list skips the sort",
        _SORT,
        "    if tensor_indices is None:\n        result.sort(key=lambda b: min(b[0]))\n",
        "torch passes tensor_indices=[] by default: the buckets are then left unsorted",
    ),
    _m(
        "7.5",
        "sparse bucket gets the first limit",
        _SPARSE,
        "            result.append(([index], bucket_size_limits[0]))\n            continue\n",
        "gives a sparse bucket a size limit like any other",
    ),
    _m(
        "7.5",
        "sparse tensor also joins a dense bucket",
        _SPARSE,
        "            result.append(([index], 0))\n",
        "forgets the continue",
    ),
    _m(
        "7.5",
        "bucket size counted in elements",
        '        bucket["size"] += tensor.numel() * tensor.element_size()\n',
        '        bucket["size"] += tensor.numel()\n',
        "limits are in bytes; numel counts elements",
    ),
    _m(
        "7.5",
        "open buckets close with the last limit",
        '    leftovers = [(b["indices"], bucket_size_limits[b["limit_at"]]) for b in open_buckets.values()]\n',
        '    leftovers = [(b["indices"], bucket_size_limits[-1]) for b in open_buckets.values()]\n',
        "gives the buckets still open at the end the last limit",
    ),
    _m(
        "7.5",
        "empty open buckets kept",
        "    leftovers = [b for b in leftovers if b[0]]\n",
        "",
        "a dtype whose last tensor closed a bucket leaves an empty one",
    ),
    _m(
        "7.5",
        "no tensors accepted",
        "    if not tensors:\n"
        '        raise RuntimeError("compute_bucket_assignment_by_size needs at least one tensor")\n',
        "",
        "returns no buckets for no tensors where torch refuses",
    ),
]

ACCEPTED_SURVIVORS: dict[str, str] = {
    "add wakes nobody": (
        "torch 2.13's HashStore.add does not wake waiters either: a wait for a key made by add "
        "returns only at its timeout (measured: 3.0 s with a 3 s timeout, 0.2 s after a set); "
        "the reference wakes them, which no value can tell apart"
    ),
    "get_future makes a fresh completed future": (
        "a Work with a future is complete when it is made, so a fresh completed future holds "
        "the same tensors; a send's or receive's future raises on gloo, as here"
    ),
    "reduce uses the tensor as scratch": (
        "torch leaves every rank's tensor but the root's unspecified after reduce (gloo itself "
        "leaves partial results there): no case can ask for one value"
    ),
    "reduce senders keep going": (
        "only the tensors of ranks other than the root change, which torch leaves unspecified"
    ),
    "no whole-world check": (
        "the reference refuses a subgroup (NotImplementedError naming NCCL's communicator "
        "split); a public case must pass on the reference, so none can make one"
    ),
}

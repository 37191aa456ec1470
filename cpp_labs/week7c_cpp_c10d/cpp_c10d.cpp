// Generated from reference_impl/cpp_c10d.cpp by `torchlab release`: this is the file you edit.
// Replace each `not_implemented(...)` with your code; the comment above the function
// says what PyTorch does and where. Check your work with `torchlab check`.
// Week 7 in C++: labccl as a c10d::Backend, the way a vendor ships one (ProcessGroupNCCL,
// ProcessGroupGloo, Ascend's ProcessGroupHCCL are all subclasses of c10d::Backend).
//
// The algorithms are week 7's, rule for rule (reference: c10d.py): point-to-point messages
// over the course's interconnect with Work objects (Task 7.9), a binomial tree for broadcast
// and reduce, rings for all_gather, reduce_scatter and all_reduce, a barrier (Task 7.10), and
// the backend c10d calls for every dist.* function (Task 7.11).
//
// What C++ changes:
// - A Work is a c10d::Work (torch/csrc/distributed/c10d/Work.hpp): wait(), isCompleted(),
//   result() and getFuture() are virtual methods you override; a future is a
//   c10::ivalue::Future (ATen/core/ivalue_inl.h) that holds an IValue (a list of tensors).
// - The backend is a c10d::Backend (Backend.hpp): one virtual method per collective, taking
//   the options struct c10d fills in (Types.hpp: AllreduceOptions::reduceOp,
//   BroadcastOptions::rootRank...). ProcessGroup.hpp's ProcessGroup holds a Backend per
//   device type and forwards each call to it through the c10d:: operators the dispatcher
//   registers (Ops.cpp): that is how dist.all_reduce(t) reaches your allreduce.
// - c10d calls a backend without Python's GIL (the bindings release it). The interconnect is
//   the course's Python object, so the given Port takes the GIL for each message; your code
//   never touches Python.
//
// Where PyTorch does this (torch 2.13): torch/csrc/distributed/c10d/Backend.hpp, Work.hpp,
// Types.hpp, ProcessGroupGloo.cpp (a CPU backend: its AsyncWork classes and one gloo
// algorithm per collective), the "Customize Process Group Backends Using Cpp Extensions"
// tutorial (a Backend in an extension, registered with dist.Backend.register_backend), and
// test/cpp_extensions/cpp_c10d_extension.cpp in PyTorch's own tests.

#include <ATen/core/ivalue.h>
#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/distributed/c10d/Backend.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/extension.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace torchlab_c10d {

using c10d::ReduceOp;

// An exercise not written yet: a clear error in Python (NotImplementedError), never a crash.
[[noreturn]] void not_implemented(const char* what) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, what);  // the checks say "not implemented yet: " first
  std::abort();  // unreachable: the check above always throws
}

// === Given: the interconnect, from C++ ======================================================

// One rank's port on the course's interconnect (autograder/weeks/week7/world.py's Port):
// send(dst, tensor) puts a copy on the wire and never blocks; recv(src) returns the next tensor
// src sent here, waiting for it (raising after a few seconds: see py_error below); messages
// between two ranks arrive in order. Each call takes the GIL for the Python port.
struct Port {
  explicit Port(py::object port)
      : port_(new py::object(std::move(port)), [](py::object* p) {
          // c10d may drop the last reference without the GIL (its bindings release it)
          if (Py_IsInitialized()) {
            py::gil_scoped_acquire gil;
            delete p;
          }
        }) {
    py::gil_scoped_acquire gil;
    rank = port_->attr("rank").cast<int>();
    world_size = port_->attr("world_size").cast<int>();
  }

  void send(int dst, const at::Tensor& tensor) const {
    py::gil_scoped_acquire gil;
    port_->attr("send")(dst, tensor);
  }

  at::Tensor recv(int src) const {
    py::gil_scoped_acquire gil;
    return port_->attr("recv")(src).cast<at::Tensor>();
  }

  int rank = 0;
  int world_size = 1;

 private:
  std::shared_ptr<py::object> port_;
};

// A ReduceOp's name, as Python prints it ("SUM", "BAND"...).
std::string op_name(ReduceOp::RedOpType kind) {
  switch (kind) {
    case ReduceOp::SUM: return "SUM";
    case ReduceOp::AVG: return "AVG";
    case ReduceOp::PRODUCT: return "PRODUCT";
    case ReduceOp::MIN: return "MIN";
    case ReduceOp::MAX: return "MAX";
    case ReduceOp::BAND: return "BAND";
    case ReduceOp::BOR: return "BOR";
    case ReduceOp::BXOR: return "BXOR";
    case ReduceOp::PREMUL_SUM: return "PREMUL_SUM";
    default: return "UNUSED";
  }
}

// gloo's point-to-point refuses a non-contiguous tensor (checkSingleTensor in
// ProcessGroupGloo.cpp), though its collectives take one: so does labccl.
void check_contiguous(const at::Tensor& tensor) {
  TORCH_CHECK(tensor.is_contiguous(), "input tensor has to be contiguous");
}

// Raise Python's NotImplementedError with `message` (what a lab refuses to model).
[[noreturn]] void refuse(const std::string& message) {
  py::gil_scoped_acquire gil;
  PyErr_SetString(PyExc_NotImplementedError, message.c_str());
  throw py::error_already_set();
}

// The port of the rank this thread runs (c10d.py's current_port(): the course starts one
// thread per rank and hands each its port).
Port current_port() {
  py::gil_scoped_acquire gil;
  return Port(py::module_::import("threading").attr("current_thread")().attr("port"));
}

// === Task 7.9: Work and point-to-point messages =============================================

// Task 7.9: what an async call returns (c10d.py's LabWork, as a c10d::Work). `tensors`: what the
// operation wrote (std::nullopt: a Work with no result, as gloo's send, recv and
// reduce-scatter Works: keep c10d::Work's own result() and getFuture(), which throw
// "result() not implemented." and "Work::getFuture not implemented."). `finish`: what
// completes the operation (a receive's), run once by wait(); empty: complete already.
struct LabWork : c10d::Work {
  explicit LabWork(std::optional<std::vector<at::Tensor>> tensors,
                   std::function<void()> finish = nullptr)
      : tensors_(std::move(tensors)), finish_(std::move(finish)) {
    not_implemented("LabWork::LabWork (Task 7.9)");
  }

  bool wait(std::chrono::milliseconds timeout = kNoTimeout) override {
    not_implemented("LabWork::wait (Task 7.9)");
  }

  bool isCompleted() override {
    not_implemented("LabWork::isCompleted (Task 7.9)");
  }

  std::vector<at::Tensor> result() override {
    not_implemented("LabWork::result (Task 7.9)");
  }

  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override {
    not_implemented("LabWork::getFuture (Task 7.9)");
  }

 private:
  std::optional<std::vector<at::Tensor>> tensors_;
  std::function<void()> finish_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

// Task 7.9: one rank's communicator over its port (c10d.py's Comm; NCCL's ncclComm_t). isend puts a
// copy of the tensor on the wire and returns a completed Work; irecv returns a Work whose
// wait() receives the next message from src into the tensor: the bytes as they came, into
// the buffer's dtype and shape; a message of another size in bytes throws, naming both sizes.
struct Comm {
  explicit Comm(Port port) : port(std::move(port)) {
    rank = this->port.rank;
    world_size = this->port.world_size;
  }

  c10::intrusive_ptr<c10d::Work> isend(const at::Tensor& tensor, int dst) {
    not_implemented("Comm::isend (Task 7.9)");
  }

  c10::intrusive_ptr<c10d::Work> irecv(at::Tensor tensor, int src) {
    not_implemented("Comm::irecv (Task 7.9)");
  }

  void send(const at::Tensor& tensor, int dst) { isend(tensor, dst)->wait(); }
  void recv(at::Tensor tensor, int src) { irecv(std::move(tensor), src)->wait(); }

  Port port;
  int rank = 0;
  int world_size = 1;
};

// === Task 7.10: collectives by algorithm ====================================================

// Task 7.10: a = a op b in place (c10d.py's combine; gloo's toFunction in
// ProcessGroupGlooDetail.hpp): SUM and AVG add (AVG divides once, at the end), PRODUCT multiplies,
// MAX and MIN keep the larger and smaller, BAND, BOR, BXOR are bitwise on integer tensors only;
// anything else (PREMUL_SUM) throws, as gloo does.
void combine(at::Tensor& a, const at::Tensor& b, const ReduceOp& op) {
  not_implemented("combine (Task 7.10)");
}

// AVG is SUM divided by the world size in place, as gloo does (given).
void average(at::Tensor& tensor, const ReduceOp& op, int world_size) {
  if (op.op_ == ReduceOp::AVG) {
    tensor.div_(world_size);
  }
}

// dist.broadcast over a binomial tree (MPICH's MPIR_Bcast_intra_binomial): ranks numbered
// relative to the root, v = (rank - src) % W; receive from v minus its lowest set bit, then
// send to v + m for each smaller power of two m, largest first, where v + m < W.
void broadcast(Comm& comm, at::Tensor tensor, int src) {
  not_implemented("broadcast (Task 7.10)");
}

// dist.reduce over a binomial tree (MPIR_Reduce_intra_binomial): for each power of two m from
// 1 up, a rank with bit m clear receives from v + m (if it exists) and combines; a rank with
// bit m set sends what it has to v - m and stops. Only dst's tensor changes.
void reduce(Comm& comm, at::Tensor tensor, int dst, const ReduceOp& op) {
  not_implemented("reduce (Task 7.10)");
}

// dist.all_gather over a ring: at step s (0 .. W-2) send block (rank - s) % W right and
// receive block (rank - s - 1) % W from the left.
void all_gather(Comm& comm, std::vector<at::Tensor> output, const at::Tensor& tensor) {
  not_implemented("all_gather (Task 7.10)");
}

// The reduce-scatter ring on `chunks` (one per rank, reduced in place): at step s send chunk
// (rank - s - 1) % W right, receive chunk (rank - s - 2) % W from the left and combine it
// into your own; after W - 1 steps chunk `rank` holds the reduction of every rank's.
void ring_reduce_scatter(Comm& comm, std::vector<at::Tensor>& chunks, const ReduceOp& op) {
  not_implemented("ring_reduce_scatter (Task 7.10)");
}

// dist.reduce_scatter: output becomes the reduction over ranks of their inputs[rank], over
// the ring above. The inputs stay unchanged.
void reduce_scatter(Comm& comm, at::Tensor output, const std::vector<at::Tensor>& inputs,
                    const ReduceOp& op) {
  not_implemented("reduce_scatter (Task 7.10)");
}

// dist.all_reduce as a ring all-reduce: the flattened tensor split into W chunks
// (at::tensor_split), the reduce-scatter ring, then the all-gather ring on the chunks.
// 2 (W - 1) messages of about N / W elements per rank.
void all_reduce(Comm& comm, at::Tensor tensor, const ReduceOp& op) {
  not_implemented("all_reduce (Task 7.10)");
}

// dist.barrier: no rank returns before every rank has called it. An all_reduce of one
// element is one: no rank's result is ready before every rank has sent its part.
void barrier(Comm& comm) {
  not_implemented("barrier (Task 7.10)");
}

// === Task 7.11: labccl, a c10d::Backend =====================================================

// Task 7.11: the library as a c10d backend (c10d.py's LabProcessGroup, in C++). Each method runs
// its collective to the end and returns a completed LabWork holding the tensors it wrote
// (_allgather_base: the blocks of the output), except where gloo's Work has no result (send, recv,
// reduce_scatter, _reduce_scatter_base).
struct LabBackend : c10d::Backend {
  LabBackend(Port port, int rank, int size) : c10d::Backend(rank, size), comm_(std::move(port)) {}

  const std::string getBackendName() const override {
    return "labccl";
  }

  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts) override {
    not_implemented("LabBackend::allreduce (Task 7.11)");
  }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts) override {
    not_implemented("LabBackend::broadcast (Task 7.11)");
  }

  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors,
                                        const c10d::ReduceOptions& opts) override {
    not_implemented("LabBackend::reduce (Task 7.11)");
  }

  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override {
    not_implemented("LabBackend::allgather (Task 7.11)");
  }

  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override {
    not_implemented("LabBackend::_allgather_base (Task 7.11)");
  }

  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override {
    not_implemented("LabBackend::reduce_scatter (Task 7.11)");
  }

  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
      at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) override {
    not_implemented("LabBackend::_reduce_scatter_base (Task 7.11)");
  }

  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override {
    not_implemented("LabBackend::barrier (Task 7.11)");
  }

  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst,
                                      int tag) override {
    not_implemented("LabBackend::send (Task 7.11)");
  }

  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src,
                                      int tag) override {
    not_implemented("LabBackend::recv (Task 7.11)");
  }

 private:
  Comm comm_;
};

// Task 7.11: the backend's creator, what init_process_group("labccl", ...) calls with the store (a
// PrefixStore), this rank, the world size and the timeout (distributed_c10d.py,
// _new_process_group_helper). labccl runs on the whole world only: a subgroup needs its own
// communicator (NCCL's ncclCommSplit), so another rank or size throws NotImplementedError.
c10::intrusive_ptr<c10d::Backend> create_labccl(const c10::intrusive_ptr<c10d::Store>& store,
                                                int rank, int size,
                                                const std::chrono::duration<float>& timeout) {
  not_implemented("create_labccl (Task 7.11)");
}

}  // namespace torchlab_c10d

// === Given: the Python face (cpp_c10d.py wraps it) ==========================================

PYBIND11_MODULE(torchlab_cpp_c10d, m) {
  using namespace torchlab_c10d;
  py::module_::import("torch.distributed");  // c10d's Work, ReduceOp, Store and Backend types
  // torch's errors reach Python as torch's own bindings raise them (c10::NotImplementedError as
  // NotImplementedError, c10::ValueError as ValueError...), not all as RuntimeError
  py::register_local_exception_translator([](std::exception_ptr error) {
    if (error) {
      torch::translate_exception_to_python(error);
    }
  });

  py::class_<Comm>(m, "Comm")
      .def(py::init([](py::object port) { return Comm(Port(std::move(port))); }))
      .def_readonly("rank", &Comm::rank)
      .def_readonly("world_size", &Comm::world_size)
      .def("isend", &Comm::isend, py::call_guard<py::gil_scoped_release>())
      .def("irecv", &Comm::irecv, py::call_guard<py::gil_scoped_release>())
      .def("send", &Comm::send, py::call_guard<py::gil_scoped_release>())
      .def("recv", &Comm::recv, py::call_guard<py::gil_scoped_release>());

  auto sum = ReduceOp(ReduceOp::SUM);
  m.def("broadcast", &broadcast, py::call_guard<py::gil_scoped_release>());
  m.def("reduce", &reduce, py::arg("comm"), py::arg("tensor"), py::arg("dst"),
        py::arg("op") = sum, py::call_guard<py::gil_scoped_release>());
  m.def("all_gather", &all_gather, py::call_guard<py::gil_scoped_release>());
  m.def("reduce_scatter", &reduce_scatter, py::arg("comm"), py::arg("output"),
        py::arg("inputs"), py::arg("op") = sum, py::call_guard<py::gil_scoped_release>());
  m.def("all_reduce", &all_reduce, py::arg("comm"), py::arg("tensor"), py::arg("op") = sum,
        py::call_guard<py::gil_scoped_release>());
  m.def("barrier", &barrier, py::call_guard<py::gil_scoped_release>());
  m.def("create_labccl", &create_labccl, py::call_guard<py::gil_scoped_release>());
}

// Generated from reference_impl/cpp_ops.cpp by `torchlab release`: this is the file you edit.
// Replace each `not_implemented(...)` with your code; the comment above the function
// says what PyTorch does and where. Check your work with `torchlab check`.
// Week 2, part C: the dispatcher from C++, where PyTorch's own operators are registered.
//
// Part B registered an operator from Python (torch.library). Here the same operator,
// linear(x, w, b) = x @ w.T + b, is registered the way aten's are, from C++:
//   - TORCH_LIBRARY(torchlab_cpp, m) defines the schema (torch/library.h: a static
//     initializer that calls Dispatcher::registerDef when the library is loaded);
//   - TORCH_LIBRARY_IMPL(torchlab_cpp, CPU / Meta / Autograd, m) registers one kernel per
//     dispatch key (Dispatcher::registerImpl; aten/src/ATen/core/dispatch/OperatorEntry.cpp);
//   - the Autograd kernel is a torch::autograd::Function (torch/csrc/autograd/custom_function.h)
//     that records a node and calls the op again below autograd;
//   - a boxed fallback (makeFromBoxedFunction) at a spare key sees every op, whatever its
//     signature: the arguments arrive on a stack of IValues.
// Python loads this file with torch.ops.load_library (cpp_ops.py); the grader builds it with
// torch.utils.cpp_extension and ninja, cached by the source's hash.

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/ops/add.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/sum.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/library.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace torchlab_cpp {

// An exercise not written yet: a clear error in Python (NotImplementedError), never a crash.
[[noreturn]] void not_implemented(const char* what) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, what);  // the checks say "not implemented yet: " first
  std::abort();  // unreachable: the check above always throws
}

using OptionalTensor = std::optional<at::Tensor>;

bool has(const OptionalTensor& b) {
  return b.has_value() && b->defined();
}

// ---- Task 2.9: the operator and its CPU kernel ---------------------------------------------

// Task 2.9: the CPU kernel: x @ w.T, plus b when there is one. x may have leading batch
// dimensions (x [*, in], w [out, in], b [out]). Return a new tensor, never a view of x.
at::Tensor linear_cpu(const at::Tensor& x, const at::Tensor& w, const OptionalTensor& b) {
  not_implemented("linear_cpu (Task 2.9)");
}

// ---- Task 2.10: the Autograd kernel ------------------------------------------------------------

// The op itself, as the dispatcher knows it: calling it runs the kernel of the highest key.
at::Tensor call_linear(const at::Tensor& x, const at::Tensor& w, const OptionalTensor& b) {
  static auto op = c10::Dispatcher::singleton()
                       .findSchemaOrThrow("torchlab_cpp::linear", "")
                       .typed<at::Tensor(const at::Tensor&, const at::Tensor&, const OptionalTensor&)>();
  return op.call(x, w, b);
}

struct LinearFunction : public torch::autograd::Function<LinearFunction> {
  // Given: save what backward needs, then run the op below autograd (else it would land on
  // this kernel again): at::AutoDispatchBelowADInplaceOrView, as torch's generated
  // VariableType kernels do (torch/csrc/autograd/generated/VariableType*.cpp). Every call of
  // the op passes here first, with or without requires_grad: Autograd is above CPU and Meta.
  static at::Tensor forward(
      torch::autograd::AutogradContext* ctx,
      const at::Tensor& x,
      const at::Tensor& w,
      const OptionalTensor& b) {
    ctx->save_for_backward({x, w});
    ctx->saved_data["has_bias"] = has(b);
    at::AutoDispatchBelowADInplaceOrView below;
    return call_linear(x, w, b);
  }

  // Task 2.10: one gradient per input of forward: dx = g @ w, dw = g.T @ x over every batch
  // row, db = g summed over the batch rows (an undefined tensor when there is no b).
  static torch::autograd::tensor_list backward(
      torch::autograd::AutogradContext* ctx, torch::autograd::tensor_list grads) {
    not_implemented("LinearFunction::backward (Task 2.10)");
  }
};

at::Tensor linear_autograd(const at::Tensor& x, const at::Tensor& w, const OptionalTensor& b) {
  return LinearFunction::apply(x, w, b);
}

// ---- Task 2.11: the Meta kernel ----------------------------------------------------------------

// Task 2.11: what comes out, without computing it: [*, out] on the meta device, x's dtype.
// FakeTensor (and so torch.compile) asks this kernel, on tensors that have no data.
at::Tensor linear_meta(const at::Tensor& x, const at::Tensor& w, const OptionalTensor& b) {
  not_implemented("linear_meta (Task 2.11)");
}

// ---- Task 2.12: a boxed fallback that logs ---------------------------------------------------

std::mutex log_mutex;
std::vector<std::string> calls;  // "aten::mul [2, 3] []": each op, its arguments' shapes

// Task 2.12: one boxed kernel for every op at the spare key AutocastHPU. Note the op's name
// and, for each of its arguments (the last op.schema().arguments().size() entries of the
// stack), the tensor's shape, or [] for anything else (as torch's profiler records input
// shapes); then go on below this key with the same stack: op.redispatchBoxed with the key
// set minus AutocastHPU.
void logging_fallback(
    const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
  not_implemented("logging_fallback (Task 2.12)");
}

std::vector<std::string> call_log() {
  std::lock_guard<std::mutex> lock(log_mutex);
  return calls;
}

void clear_call_log() {
  std::lock_guard<std::mutex> lock(log_mutex);
  calls.clear();
}

}  // namespace torchlab_cpp

// ---- Registration (given): what TORCH_LIBRARY expands to runs when the library loads ---------

TORCH_LIBRARY(torchlab_cpp, m) {
  m.def("linear(Tensor x, Tensor w, Tensor? b=None) -> Tensor");
  m.def("call_log() -> str[]", &torchlab_cpp::call_log);
  m.def("clear_call_log() -> ()", &torchlab_cpp::clear_call_log);
}

TORCH_LIBRARY_IMPL(torchlab_cpp, CPU, m) {
  m.impl("linear", &torchlab_cpp::linear_cpu);
}

TORCH_LIBRARY_IMPL(torchlab_cpp, Meta, m) {
  m.impl("linear", &torchlab_cpp::linear_meta);
}

TORCH_LIBRARY_IMPL(torchlab_cpp, Autograd, m) {
  m.impl("linear", &torchlab_cpp::linear_autograd);
}

TORCH_LIBRARY_IMPL(_, AutocastHPU, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&torchlab_cpp::logging_fallback>());
}

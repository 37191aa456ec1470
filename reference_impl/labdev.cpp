// Week 5, the C++ half: a device called "labdev" that is real to PyTorch.
//
// PyTorch keeps one dispatch key for out-of-tree backends, PrivateUse1. A backend fills it in
// with four things, each registered with torch at load time (static initializers):
//   - an allocator for the device type      (c10/core/Allocator.h, REGISTER_ALLOCATOR)
//   - a device guard                         (c10/core/impl/DeviceGuardImplInterface.h)
//   - the hooks autograd and others consult  (ATen/detail/PrivateUse1HooksInterface.h)
//   - kernels for the PrivateUse1 key        (TORCH_LIBRARY_IMPL(aten, PrivateUse1, m))
// plus a boxed fallback for every op without a kernel (aten/src/ATen/native/CPUFallback.cpp).
// PyTorch's own test backend does the same at larger scale: test/cpp_extensions/
// open_registration_extension/torch_openreg (csrc/aten/OpenRegMinimal.cpp, csrc/runtime/).
//
// Our "chip" keeps its memory in host RAM, so the kernels can call a vendor math library that
// reads device buffers in place (namespace vendor below: CPU ATen on the same bytes). What the
// chip needs that the CPU does not: every block 32-byte aligned.
//
// Python loads this file with torch.ops.load_library (see privateuse1.py); the grader builds it
// with torch.utils.cpp_extension and ninja, cached by the source's hash.

#include <ATen/EmptyTensor.h>
#include <ATen/ExpandUtils.h>
#include <ATen/InferSize.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/TensorUtils.h>
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/add.h>
#include <ATen/ops/clamp_min.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/mm.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/result_type.h>
#include <ATen/ops/sum.h>
#include <c10/core/Allocator.h>
#include <c10/core/CachingDeviceAllocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace labdev {

using c10::DeviceIndex;
using c10::DeviceType;

constexpr DeviceType kLabdev = DeviceType::PrivateUse1;
constexpr size_t kAlignment = 32;  // the chip reads memory in 32-byte rows

// An exercise not written yet: a clear error in Python (NotImplementedError), never a crash.
[[noreturn]] void not_implemented(const char* what) {
  TORCH_CHECK_NOT_IMPLEMENTED(false, what);  // the checks say "not implemented yet: " first
  std::abort();  // unreachable: the check above always throws
}

// ---- The chip's math library (given) ----------------------------------------------------------

namespace vendor {
// A CPU tensor over the same bytes as `t` (device memory is host memory on this chip): the
// vendor library computes in place, so no kernel copies its inputs. A CPU tensor (the wrapped
// Python number in `x + 1`) is returned as it is.
at::Tensor host(const at::Tensor& t) {
  if (t.device().type() == c10::DeviceType::CPU) {
    return t;
  }
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options().device(c10::kCPU));
}

// A meta tensor with t's sizes, strides and dtype: what an op's meta kernel needs to say what
// its result will be, without data. A wrapped Python number (a CPU scalar) stays as it is:
// torch lets those mix with tensors on any device.
at::Tensor meta_like(const at::Tensor& t) {
  if (t.device().type() == c10::DeviceType::CPU && t.dim() == 0) {
    return t;
  }
  return at::empty_strided(t.sizes(), t.strides(), t.options().device(c10::kMeta));
}
}  // namespace vendor

// ---- Task 5.2: the allocator -----------------------------------------------------------------

// What the allocator has handed out. A leak shows as live blocks after the tensors are gone.
struct Stats {
  int64_t allocated_bytes = 0;  // held now, rounded sizes
  int64_t peak_bytes = 0;
  int64_t live_blocks = 0;
  int64_t total_allocations = 0;
};

std::mutex stats_mutex;
Stats stats;
std::unordered_map<void*, size_t> block_sizes;  // ptr -> rounded size, for the deleter

void labdev_free(void* ptr) {
  // Task 5.2: the deleter every DataPtr of ours carries. Forget the block and count it back.
  // BEGIN SOLUTION
  if (ptr == nullptr) {
    return;
  }
  std::lock_guard<std::mutex> lock(stats_mutex);
  auto it = block_sizes.find(ptr);
  TORCH_CHECK(it != block_sizes.end(), "labdev: freeing a block this allocator never gave out");
  stats.allocated_bytes -= static_cast<int64_t>(it->second);
  stats.live_blocks -= 1;
  block_sizes.erase(it);
  std::free(ptr);
  // END SOLUTION
}

std::vector<int64_t> memory_stats();
void reset_peak_memory_stats();

// A caching allocator lent to the chip (week 4c's, through use_device_allocator below): while
// one is set, every block comes from it and torch.accelerator.memory_stats() shows its figures.
std::atomic<c10::DeviceAllocator*> lent_allocator{nullptr};

// c10::DeviceAllocator is the interface torch.accelerator's memory functions reach
// (c10/core/CachingDeviceAllocator.h); CUDA's caching allocator implements it too.
struct LabdevAllocator final : c10::DeviceAllocator {
  // Task 5.2: a block of at least nbytes, 32-byte aligned, as a DataPtr on labdev:0 whose
  // deleter is labdev_free. Zero bytes give a null DataPtr (as c10::alloc_cpu does).
  c10::DataPtr allocate(size_t nbytes) override {
    if (c10::DeviceAllocator* cache = lent_allocator.load()) {
      return cache->allocate(nbytes);  // given: a lent caching allocator serves every block
    }
    c10::Device device(kLabdev, 0);
    // BEGIN SOLUTION
    if (nbytes == 0) {
      return {nullptr, nullptr, &labdev_free, device};
    }
    // aligned_alloc wants a multiple of the alignment: the chip's rows are whole anyway.
    size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;
    void* ptr = std::aligned_alloc(kAlignment, rounded);
    TORCH_CHECK(ptr != nullptr, "labdev: out of memory allocating ", rounded, " bytes");
    std::lock_guard<std::mutex> lock(stats_mutex);
    block_sizes[ptr] = rounded;
    stats.allocated_bytes += static_cast<int64_t>(rounded);
    stats.peak_bytes = std::max(stats.peak_bytes, stats.allocated_bytes);
    stats.live_blocks += 1;
    stats.total_allocations += 1;
    return {ptr, ptr, &labdev_free, device};
    // END SOLUTION
  }

  c10::DeleterFnPtr raw_deleter() const override {
    c10::DeviceAllocator* cache = lent_allocator.load();
    return cache != nullptr ? cache->raw_deleter() : &labdev_free;
  }

  void copy_data(void* dest, const void* src, std::size_t count) const override {
    std::memcpy(dest, src, count);  // host memory: a device-to-device copy is a memcpy
  }

  // Given: what torch.accelerator asks (memory_stats, empty_cache, reset_peak_memory_stats):
  // the lent allocator's answers, else this allocator's own counters under torch's names.
  bool initialized() override {
    return true;
  }

  void emptyCache(c10::MempoolId_t pool) override {
    if (c10::DeviceAllocator* cache = lent_allocator.load()) {
      cache->emptyCache(pool);
    }
  }

  void recordStream(const c10::DataPtr&, c10::Stream) override {}  // one stream: nothing to order

  c10::CachingDeviceAllocator::DeviceStats getDeviceStats(DeviceIndex device) override {
    if (c10::DeviceAllocator* cache = lent_allocator.load()) {
      return cache->getDeviceStats(device);
    }
    std::vector<int64_t> counters = memory_stats();
    c10::CachingDeviceAllocator::DeviceStats out;
    auto& bytes = out.allocated_bytes[static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE)];
    auto& blocks = out.allocation[static_cast<size_t>(c10::CachingAllocator::StatType::AGGREGATE)];
    bytes.current = counters[0];
    bytes.peak = counters[1];
    blocks.current = counters[2];
    blocks.allocated = counters[3];
    return out;
  }

  void resetAccumulatedStats(DeviceIndex device) override {
    if (c10::DeviceAllocator* cache = lent_allocator.load()) {
      cache->resetAccumulatedStats(device);
    }
  }

  void resetPeakStats(DeviceIndex device) override {
    if (c10::DeviceAllocator* cache = lent_allocator.load()) {
      cache->resetPeakStats(device);
    } else {
      reset_peak_memory_stats();
    }
  }
};

LabdevAllocator allocator;
// Static initialization: from load time on, c10::GetAllocator(PrivateUse1) is ours.
REGISTER_ALLOCATOR(kLabdev, &allocator);

std::vector<int64_t> memory_stats() {
  std::lock_guard<std::mutex> lock(stats_mutex);
  return {stats.allocated_bytes, stats.peak_bytes, stats.live_blocks, stats.total_allocations};
}

// Given: the allocator's own check, with no kernel and no guard in the way: a block of n bytes
// from the allocator, whether it is aligned, what the counters say while it lives (bytes,
// blocks) and after its DataPtr is gone.
std::vector<int64_t> allocator_probe(int64_t n) {
  std::vector<int64_t> before = memory_stats();
  std::vector<int64_t> out;
  {
    c10::DataPtr block = allocator.allocate(static_cast<size_t>(n));
    std::vector<int64_t> during = memory_stats();
    bool aligned = reinterpret_cast<uintptr_t>(block.get()) % kAlignment == 0;
    out = {aligned, during[0] - before[0], during[2] - before[2]};
  }
  std::vector<int64_t> after = memory_stats();
  out.push_back(after[0] - before[0]);
  out.push_back(after[2] - before[2]);
  return out;
}

void reset_peak_memory_stats() {
  std::lock_guard<std::mutex> lock(stats_mutex);
  stats.peak_bytes = stats.allocated_bytes;
}

// Given: from now on, blocks come from the c10::DeviceAllocator at `address` (week 4c's
// cpp_allocator.lend_to_device gives one); 0 goes back to the allocator above. Blocks already
// handed out keep the deleter they were made with, so both kinds may be alive at once.
void use_device_allocator(int64_t address) {
  lent_allocator.store(reinterpret_cast<c10::DeviceAllocator*>(static_cast<uintptr_t>(address)));
}

// ---- Task 5.3: the device guard and the hooks ----------------------------------------------

constexpr DeviceIndex kDeviceCount = 1;  // one labdev, like torch.cpu's one device
thread_local DeviceIndex current_device = 0;  // CUDA's current device is per thread too

// c10::DeviceGuard calls these around every kernel that asks for one, and the autograd
// engine uses the streams and events to order work. Our chip runs everything in order on one
// stream, so an event is always complete.
struct LabdevGuardImpl final : c10::impl::DeviceGuardImplInterface {
  DeviceType type() const override {
    return kLabdev;
  }

  // Task 5.3: make `d` current and give back the device that was current.
  c10::Device exchangeDevice(c10::Device d) const override {
    // BEGIN SOLUTION
    c10::Device old = getDevice();
    setDevice(d);
    return old;
    // END SOLUTION
  }

  // Task 5.3: the current device, as labdev:<index>.
  c10::Device getDevice() const override {
    // BEGIN SOLUTION
    return {kLabdev, current_device};
    // END SOLUTION
  }

  // Task 5.3: make `d` current; refuse another device type or an index that does not exist.
  void setDevice(c10::Device d) const override {
    // BEGIN SOLUTION
    TORCH_CHECK(d.type() == kLabdev, "labdev guard: expected a labdev device, got ", d);
    TORCH_CHECK(
        d.index() >= 0 && d.index() < kDeviceCount, "labdev: there is no device ", static_cast<int>(d.index()));
    current_device = d.index();
    // END SOLUTION
  }

  void uncheckedSetDevice(c10::Device d) const noexcept override {
    current_device = d.index();  // noexcept: called from destructors, so no checks here
  }

  c10::Stream getStream(c10::Device d) const override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }

  c10::Stream exchangeStream(c10::Stream s) const override {
    return c10::Stream(c10::Stream::DEFAULT, s.device());
  }

  DeviceIndex deviceCount() const noexcept override {
    return kDeviceCount;
  }

  // Events, which the autograd engine records between streams: all complete at once here.
  void record(void** event, const c10::Stream&, const DeviceIndex, const c10::EventFlag)
      const override {
    *event = nullptr;
  }
  void block(void*, const c10::Stream&) const override {}
  bool queryEvent(void*) const override {
    return true;
  }
  void destroyEvent(void*, const DeviceIndex) const noexcept override {}
  bool queryStream(const c10::Stream&) const override {
    return true;
  }
  void synchronizeStream(const c10::Stream&) const override {}
  void synchronizeDevice(const DeviceIndex) const override {}
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, LabdevGuardImpl);

// The hooks ATen asks about a PrivateUse1 device (at::Context, the autograd engine). Without
// them backward stops with "Please register PrivateUse1HooksInterface".
struct LabdevHooks final : at::PrivateUse1HooksInterface {
  bool isBuilt() const override {
    return true;
  }
  bool isAvailable() const override {
    return true;
  }
  DeviceIndex deviceCount() const override {
    return kDeviceCount;  // what torch._C._accelerator_hooks_device_count() reports
  }
  bool hasPrimaryContext(DeviceIndex) const override {
    return true;  // nothing to initialise on a chip whose memory is host memory
  }
  c10::Device getDeviceFromPtr(void*) const override {
    return {kLabdev, 0};
  }
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t newsize) const override;
};

// ---- Task 5.4: creating tensors --------------------------------------------------------------

c10::DispatchKeySet labdev_keys() {
  // The backend key only: TensorImpl's constructor adds the autograd and autocast keys that
  // go with it (c10/core/TensorImpl.cpp).
  return c10::DispatchKeySet(c10::DispatchKey::PrivateUse1);
}

// Task 5.4: aten::empty.memory_format on labdev: memory from our allocator, our keys.
at::Tensor empty_memory_format(
    c10::IntArrayRef size,
    std::optional<c10::ScalarType> dtype,
    std::optional<c10::Layout> layout,
    std::optional<c10::Device> device,
    std::optional<bool> pin_memory,
    std::optional<c10::MemoryFormat> memory_format) {
  // BEGIN SOLUTION
  TORCH_CHECK(!pin_memory.value_or(false), "labdev: pinned memory is a host-side idea");
  c10::ScalarType scalar_type = c10::dtype_or_default(dtype);
  return at::detail::empty_generic(size, &allocator, labdev_keys(), scalar_type, memory_format);
  // END SOLUTION
}

// Task 5.4: aten::empty_strided on labdev (what .to("labdev") creates its target with).
at::Tensor empty_strided(
    c10::IntArrayRef size,
    c10::IntArrayRef stride,
    std::optional<c10::ScalarType> dtype,
    std::optional<c10::Layout> layout,
    std::optional<c10::Device> device,
    std::optional<bool> pin_memory) {
  // BEGIN SOLUTION
  c10::ScalarType scalar_type = c10::dtype_or_default(dtype);
  return at::detail::empty_strided_generic(size, stride, &allocator, labdev_keys(), scalar_type);
  // END SOLUTION
}

// ---- Task 5.5: copies between the CPU and the device ---------------------------------------

// Task 5.5: aten::_copy_from: copy `self` into `dst`, where either or both are on labdev.
// torch's copy_ (aten/src/ATen/native/Copy.cpp, copy_impl) sends a copy to the backend's
// _copy_from whenever one side is not a CPU tensor. Dtype and strides may differ.
at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  // BEGIN SOLUTION
  if (self.device() == dst.device()) {
    // Two views of one device storage. copy_impl (aten/src/ATen/native/Copy.cpp) hands a
    // device copy to us before its own early exit and overlap checks, so they are ours: a view
    // copied onto the same data is already there, and a partial overlap is refused (the host
    // views below are separate CPU storages, where MemoryOverlap.cpp could not see it).
    if (self.is_alias_of(dst) && self.storage_offset() == dst.storage_offset() &&
        self.sizes().equals(dst.sizes()) && self.strides().equals(dst.strides()) &&
        self.scalar_type() == dst.scalar_type()) {
      return dst;
    }
    at::assert_no_partial_overlap(dst, self);
  }
  vendor::host(dst).copy_(vendor::host(self));  // CPU copy_: casts, strides, broadcasting
  return dst;
  // END SOLUTION
}

// Task 5.5: grow a labdev storage to `newsize` bytes, keeping its bytes (resize_ on a device
// tensor, and the hooks' resizePrivateUse1Bytes).
void resize_bytes(const c10::Storage& storage, size_t newsize) {
  // BEGIN SOLUTION
  TORCH_CHECK(storage.resizable(), "labdev: trying to resize a storage that is not resizable");
  c10::DataPtr fresh = allocator.allocate(newsize);
  size_t keep = std::min(storage.nbytes(), newsize);
  if (keep > 0) {
    std::memcpy(fresh.get(), storage.data(), keep);
  }
  const_cast<c10::Storage&>(storage).set_data_ptr_noswap(std::move(fresh));
  const_cast<c10::Storage&>(storage).set_nbytes(newsize);
  // END SOLUTION
}

void LabdevHooks::resizePrivateUse1Bytes(const c10::Storage& storage, size_t newsize) const {
  resize_bytes(storage, newsize);
}

// Task 5.5: aten::_copy_from_and_resize: the CPU fallback hands results back through it, into
// a device tensor that may still be empty (shape [0]) and must take the result's shape.
at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  // BEGIN SOLUTION
  if (dst.sizes() != self.sizes()) {
    int64_t needed = at::detail::computeStorageNbytesContiguous(
        self.sizes(), dst.dtype().itemsize(), dst.storage_offset());
    if (static_cast<int64_t>(dst.storage().nbytes()) < needed) {
      resize_bytes(dst.storage(), needed);
    }
    dst.unsafeGetTensorImpl()->set_sizes_contiguous(self.sizes());
  }
  return copy_from(self, dst, false);
  // END SOLUTION
}

// ---- Task 5.6: views ---------------------------------------------------------------------------

// Task 5.6: aten::as_strided: a new TensorImpl on the SAME storage with the given geometry.
// This is what makes a view a view: no bytes are copied, and a write through one shows in the
// other. aten/src/ATen/native/TensorShape.cpp does the same in as_strided_tensorimpl.
at::Tensor as_strided(
    const at::Tensor& self,
    c10::IntArrayRef size,
    c10::IntArrayRef stride,
    std::optional<int64_t> storage_offset) {
  // BEGIN SOLUTION
  auto result = at::detail::make_tensor<c10::TensorImpl>(
      c10::TensorImpl::VIEW, c10::Storage(self.storage()), self.key_set(), self.dtype());
  // torch's own checks, then the geometry (ATen/native/Resize.h: setStrided): as many strides
  // as sizes, none negative, and the farthest element inside the storage. Without them a view
  // reads past the end of its block.
  at::native::setStrided(result, size, stride, storage_offset.value_or(self.storage_offset()));
  return result;
  // END SOLUTION
}

// Task 5.6: aten::_reshape_alias: what reshape calls when the new shape can be a view
// (aten/src/ATen/native/TensorShape.cpp, reshape_symint, with the strides computeStride gave).
// Without it reshape reaches the fallback, which cannot make a view (CPUFallback.cpp warns).
at::Tensor reshape_alias(const at::Tensor& self, c10::IntArrayRef size, c10::IntArrayRef stride) {
  // BEGIN SOLUTION
  return labdev::as_strided(self, size, stride, self.storage_offset());
  // END SOLUTION
}

// Task 5.6: aten::view: the week-1 rule (at::detail::computeStride in ATen/TensorUtils.cpp)
// for the strides of the new shape, then as_strided; refuse a shape no strides can give.
at::Tensor view(const at::Tensor& self, c10::IntArrayRef size) {
  // BEGIN SOLUTION
  at::DimVector shape = at::infer_size_dv(size, self.numel());
  auto stride = at::detail::computeStride(self.sizes(), self.strides(), shape);
  TORCH_CHECK(
      stride.has_value(),
      "view size is not compatible with input tensor's size and stride (at least one dimension"
      " spans across two contiguous subspaces). Use .reshape(...) instead.");
  return labdev::as_strided(self, shape, *stride, self.storage_offset());
  // END SOLUTION
}

// ---- Task 5.7: kernels ------------------------------------------------------------------------

// Task 5.7: aten::fill_.Scalar, in place.
at::Tensor& fill_(at::Tensor& self, const c10::Scalar& value) {
  // BEGIN SOLUTION
  vendor::host(self).fill_(value);
  return self;
  // END SOLUTION
}

// Task 5.7: a labdev tensor for a result whose geometry torch's meta kernel gave (`meta`):
// the same sizes, strides and dtype, memory from our allocator.
at::Tensor empty_result(const at::Tensor& meta) {
  // BEGIN SOLUTION
  return labdev::empty_strided(
      meta.sizes(), meta.strides(), meta.scalar_type(), std::nullopt, std::nullopt, std::nullopt);
  // END SOLUTION
}

// Each kernel below works the way torch's structured kernels do (aten/src/ATen/native/
// BinaryOps.cpp, TORCH_META_FUNC then TORCH_IMPL_FUNC): first the result's geometry, from the
// op's meta kernel on meta tensors shaped like the inputs (vendor::meta_like): the broadcast
// shape, the promoted dtype, and the layout TensorIterator picks (a transposed input gives a
// transposed result). Then empty_result on the device, then the vendor library into it.

// Task 5.7: aten::add.Tensor (`alpha` scales `other`).
at::Tensor add(const at::Tensor& self, const at::Tensor& other, const c10::Scalar& alpha) {
  // BEGIN SOLUTION
  at::Tensor out = empty_result(at::add(vendor::meta_like(self), vendor::meta_like(other), alpha));
  at::Tensor host_out = vendor::host(out);
  at::add_out(host_out, vendor::host(self), vendor::host(other), alpha);
  return out;
  // END SOLUTION
}

// Task 5.7: aten::mul.Tensor.
at::Tensor mul(const at::Tensor& self, const at::Tensor& other) {
  // BEGIN SOLUTION
  at::Tensor out = empty_result(at::mul(vendor::meta_like(self), vendor::meta_like(other)));
  at::Tensor host_out = vendor::host(out);
  at::mul_out(host_out, vendor::host(self), vendor::host(other));
  return out;
  // END SOLUTION
}

// Task 5.7: aten::sum.dim_IntList (dims may be negative; none means all; integers sum to
// int64 unless `dtype` says otherwise).
at::Tensor sum_dim(
    const at::Tensor& self,
    at::OptionalIntArrayRef dim,
    bool keepdim,
    std::optional<c10::ScalarType> dtype) {
  // BEGIN SOLUTION
  at::Tensor out = empty_result(at::sum(vendor::meta_like(self), dim, keepdim, dtype));
  at::Tensor host_out = vendor::host(out);
  at::sum_out(host_out, vendor::host(self), dim, keepdim, dtype);
  return out;
  // END SOLUTION
}

// Task 5.7: aten::sum (everything, to a 0-dim tensor).
at::Tensor sum(const at::Tensor& self, std::optional<c10::ScalarType> dtype) {
  // BEGIN SOLUTION
  return sum_dim(self, std::nullopt, false, dtype);
  // END SOLUTION
}

// Task 5.7: aten::mm: [n, k] @ [k, m] -> [n, m]. Refuse shapes that do not fit as the CPU
// kernel does (aten/src/ATen/native/LinearAlgebra.cpp, TORCH_META_FUNC(mm)): the meta
// kernel's own words differ ("a and b must have same reduction dim").
at::Tensor mm(const at::Tensor& self, const at::Tensor& mat2) {
  // BEGIN SOLUTION
  TORCH_CHECK(self.dim() == 2, "self must be a matrix");
  TORCH_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  TORCH_CHECK(
      self.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (", self.size(0),
      "x", self.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  at::Tensor out = empty_result(at::mm(vendor::meta_like(self), vendor::meta_like(mat2)));
  at::Tensor host_out = vendor::host(out);
  at::mm_out(host_out, vendor::host(self), vendor::host(mat2));
  return out;
  // END SOLUTION
}

// Task 5.7: aten::relu.
at::Tensor relu(const at::Tensor& self) {
  // BEGIN SOLUTION
  at::Tensor out = empty_result(at::relu(vendor::meta_like(self)));
  at::Tensor host_out = vendor::host(out);
  at::clamp_min_out(host_out, vendor::host(self), 0);
  return out;
  // END SOLUTION
}

// ---- Task 5.8: the fallback --------------------------------------------------------------------

std::mutex fallback_mutex;
std::vector<std::string> fallback_ops;  // "aten::sub.Tensor", in the order they fell back

// Task 5.8: every op without a labdev kernel lands here, boxed (its arguments on a stack).
// Note its name, then let at::native::cpu_fallback move the arguments to the CPU, run the CPU
// kernel and copy results and mutated arguments back (aten/src/ATen/native/CPUFallback.cpp).
void fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack) {
  // BEGIN SOLUTION
  const c10::OperatorName& name = op.operator_name();
  {
    std::lock_guard<std::mutex> lock(fallback_mutex);
    fallback_ops.push_back(
        name.overload_name.empty() ? name.name : name.name + "." + name.overload_name);
  }
  at::native::cpu_fallback(op, stack);
  // END SOLUTION
}

std::vector<std::string> fallback_log() {
  std::lock_guard<std::mutex> lock(fallback_mutex);
  return fallback_ops;
}

void clear_fallback_log() {
  std::lock_guard<std::mutex> lock(fallback_mutex);
  fallback_ops.clear();
}

// ---- Task 5.10: a custom op with a meta kernel -------------------------------------------------

// labdev::linear_relu(x, w, b) = relu(x @ w.T + b): one fused kernel on the chip. Its compute
// kernels are given; the meta kernel says only what comes out (shape, dtype, device), which is
// all FakeTensor and torch.compile ask of an op while they trace.
at::Tensor linear_relu_compute(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  at::Tensor hx = vendor::host(x), hw = vendor::host(w), hb = vendor::host(b);
  at::Tensor result = at::clamp_min(at::add(at::matmul(hx, hw.t()), hb), 0);
  if (x.device().type() == c10::DeviceType::CPU) {
    return result;
  }
  at::Tensor out = empty_memory_format(
      result.sizes(), result.scalar_type(), std::nullopt, std::nullopt, std::nullopt,
      std::nullopt);
  vendor::host(out).copy_(result);  // given: the learner's kernels are the ones above
  return out;
}

// Task 5.10: the Meta kernel: x [*, in], w [out, in], b [out] -> [*, out], on the meta device.
at::Tensor linear_relu_meta(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  // BEGIN SOLUTION
  TORCH_CHECK(x.dim() >= 1 && w.dim() == 2 && b.dim() == 1, "linear_relu: x [*, in], w [out, in]");
  TORCH_CHECK(x.size(-1) == w.size(1), "linear_relu: x has ", x.size(-1), " features, w takes ",
              w.size(1));
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end() - 1);
  shape.push_back(w.size(0));
  return at::empty(shape, x.options());
  // END SOLUTION
}

}  // namespace labdev

// ---- Registration (given) ---------------------------------------------------------------------

namespace {
struct RegisterHooks {
  RegisterHooks() {
    at::RegisterPrivateUse1HooksInterface(new labdev::LabdevHooks());
  }
} register_hooks;  // at load time, like the allocator and the guard
}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", &labdev::empty_memory_format);
  m.impl("empty_strided", &labdev::empty_strided);
  m.impl("_copy_from", &labdev::copy_from);
  m.impl("_copy_from_and_resize", &labdev::copy_from_and_resize);
  m.impl("as_strided", &labdev::as_strided);
  m.impl("view", &labdev::view);
  m.impl("_reshape_alias", &labdev::reshape_alias);
  m.impl("fill_.Scalar", &labdev::fill_);
  m.impl("add.Tensor", &labdev::add);
  m.impl("mul.Tensor", &labdev::mul);
  m.impl("sum", &labdev::sum);
  m.impl("sum.dim_IntList", &labdev::sum_dim);
  m.impl("mm", &labdev::mm);
  m.impl("relu", &labdev::relu);
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m) {
  m.fallback(torch::CppFunction::makeFromBoxedFunction<&labdev::fallback>());
}

// The lab's own ops: what the Python device module reads, and the fused op of Task 5.10.
TORCH_LIBRARY(labdev, m) {
  m.def("memory_stats() -> int[]", &labdev::memory_stats);
  m.def("reset_peak_memory_stats() -> ()", &labdev::reset_peak_memory_stats);
  m.def("allocator_probe(int n) -> int[]", &labdev::allocator_probe);
  m.def("use_device_allocator(int address) -> ()", &labdev::use_device_allocator);
  m.def("fallback_log() -> str[]", &labdev::fallback_log);
  m.def("clear_fallback_log() -> ()", &labdev::clear_fallback_log);
  m.def("linear_relu(Tensor x, Tensor w, Tensor b) -> Tensor");
}

TORCH_LIBRARY_IMPL(labdev, CPU, m) {
  m.impl("linear_relu", &labdev::linear_relu_compute);
}

TORCH_LIBRARY_IMPL(labdev, PrivateUse1, m) {
  m.impl("linear_relu", &labdev::linear_relu_compute);
}

TORCH_LIBRARY_IMPL(labdev, Meta, m) {
  m.impl("linear_relu", &labdev::linear_relu_meta);
}

"""Week 5 mutants: realistic learner bugs in reference_impl/privateuse1.py and labdev.cpp.

Among them the issue's: an allocator that ignores alignment, a view kernel that copies, a
missing ``_copy_from_and_resize``, and a fallback that skips the copy back. A C++ mutant names
its file; each is built like a submission (once per distinct source, cached by its hash).
``python -m autograder.mutation week5`` prints the table.
"""

from __future__ import annotations

from autograder.mutation import Mutant

CPP = "labdev.cpp"


def _m(task: str, name: str, old: str, new: str, why: str = "", file: str = "") -> Mutant:
    return Mutant("week5", task, name, old, new, why, file)


WEEK5_MUTANTS: list[Mutant] = [
    # --- Task 5.1: the device in Python ------------------------------------------------------
    _m(
        "5.1",
        "no generated methods",
        "    torch.utils.generate_methods_for_privateuse1_backend()\n    return DEVICE",
        "    return DEVICE",
        "forgot the third step: t.labdev() and t.is_labdev do not exist",
    ),
    _m(
        "5.1",
        "device count from a constant 0",
        "    return int(torch._C._accelerator_hooks_device_count())",
        "    return 0",
        "a placeholder left in: the device is never available",
    ),
    # --- Task 5.2: the allocator -------------------------------------------------------------
    _m(
        "5.2",
        "allocator ignores alignment",
        "    size_t rounded = (nbytes + kAlignment - 1) / kAlignment * kAlignment;\n"
        "    void* ptr = std::aligned_alloc(kAlignment, rounded);",
        "    size_t rounded = nbytes;\n    void* ptr = std::malloc(rounded);",
        "the issue's: malloc is 16-byte aligned, the chip needs 32, and sizes are not rounded",
        CPP,
    ),
    _m(
        "5.2",
        "free does not count back",
        "  stats.allocated_bytes -= static_cast<int64_t>(it->second);\n",
        "",
        "a leak in the books: memory_allocated only grows",
        CPP,
    ),
    # --- Task 5.3: the device guard ----------------------------------------------------------
    _m(
        "5.3",
        "setDevice refuses device 0",
        "d.index() >= 0 && d.index() < kDeviceCount",
        "d.index() > 0 && d.index() < kDeviceCount",
        "an off-by-one on the index check",
        CPP,
    ),
    _m(
        "5.3",
        "getDevice names the CPU",
        "    return {kLabdev, current_device};",
        "    return {c10::DeviceType::CPU, current_device};",
        "copied from a CPU guard",
        CPP,
    ),
    # --- Task 5.4: creating tensors ----------------------------------------------------------
    _m(
        "5.4",
        "empty_strided ignores the strides",
        "  return at::detail::empty_strided_generic(size, stride, &allocator, labdev_keys(), "
        "scalar_type);",
        "  return at::detail::empty_generic(size, &allocator, labdev_keys(), scalar_type, "
        "std::nullopt);",
        "every tensor contiguous: .to() of a transposed tensor loses its layout",
        CPP,
    ),
    _m(
        "5.4",
        "empty ignores the dtype",
        "  c10::ScalarType scalar_type = c10::dtype_or_default(dtype);\n"
        "  return at::detail::empty_generic(",
        "  c10::ScalarType scalar_type = c10::kFloat;\n  return at::detail::empty_generic(",
        "float32 for everything",
        CPP,
    ),
    # --- Task 5.5: copies --------------------------------------------------------------------
    _m(
        "5.5",
        "no _copy_from_and_resize",
        '  m.impl("_copy_from_and_resize", &labdev::copy_from_and_resize);\n',
        "",
        "the issue's: the fallback cannot hand results back",
        CPP,
    ),
    _m(
        "5.5",
        "resize keeps the old shape",
        "    dst.unsafeGetTensorImpl()->set_sizes_contiguous(self.sizes());\n",
        "",
        "grows the storage but forgets the sizes",
        CPP,
    ),
    # --- Task 5.6: views ---------------------------------------------------------------------
    _m(
        "5.6",
        "view kernel copies",
        "  return labdev::as_strided(self, shape, *stride, self.storage_offset());",
        "  at::Tensor out = empty_memory_format(shape, self.scalar_type(), std::nullopt,\n"
        "      std::nullopt, std::nullopt, std::nullopt);\n"
        "  vendor::host(out).view(shape).copy_(vendor::host(self).reshape(shape));\n"
        "  return out;",
        "the issue's: right values, but a write through the view is lost",
        CPP,
    ),
    _m(
        "5.6",
        "as_strided ignores the offset",
        "stride, storage_offset.value_or(self.storage_offset()));",
        "stride, self.storage_offset());",
        "x[1] and x[:, 1:] start at the wrong element",
        CPP,
    ),
    # --- Task 5.7: kernels -------------------------------------------------------------------
    _m(
        "5.7",
        "add ignores alpha",
        "  at::add_out(host_out, vendor::host(self), vendor::host(other), alpha);",
        "  at::add_out(host_out, vendor::host(self), vendor::host(other));",
        "alpha is easy to drop",
        CPP,
    ),
    _m(
        "5.7",
        "results always contiguous",
        "      meta.sizes(), meta.strides(), meta.scalar_type(), std::nullopt, std::nullopt, "
        "std::nullopt);",
        "      meta.sizes(), meta.contiguous().strides(), meta.scalar_type(), std::nullopt,\n"
        "      std::nullopt, std::nullopt);",
        "ignores the layout TensorIterator picks for a transposed input",
        CPP,
    ),
    # --- Task 5.8: the fallback --------------------------------------------------------------
    _m(
        "5.8",
        "fallback skips the copy back",
        "  at::native::cpu_fallback(op, stack);",
        # A fallback written by hand: arguments to the CPU, the CPU kernel, results back to
        # the device; the device tensors the op mutated are never written.
        "  size_t n = op.schema().arguments().size();\n"
        "  for (size_t i = stack->size() - n; i < stack->size(); ++i) {\n"
        "    c10::IValue& v = (*stack)[i];\n"
        "    if (v.isTensor() && v.toTensor().defined() && v.toTensor().device().type() == "
        "kLabdev) {\n"
        "      v = v.toTensor().cpu();\n"
        "    }\n"
        "  }\n"
        "  op.redispatchBoxed(c10::DispatchKeySet(c10::DispatchKey::CPU), stack);\n"
        "  for (c10::IValue& v : *stack) {\n"
        "    if (v.isTensor() && v.toTensor().defined()) {\n"
        "      v = v.toTensor().to(c10::Device(kLabdev, 0));\n"
        "    }\n"
        "  }",
        "the issue's: right results for functional ops, lost writes for in-place and out=",
        CPP,
    ),
    _m(
        "5.8",
        "fallback logs nothing",
        "    fallback_ops.push_back(\n",
        "    (void)(\n",
        "the op runs but is never noted",
        CPP,
    ),
    # --- Task 5.9: meta shape functions ------------------------------------------------------
    _m(
        "5.9",
        "broadcast lets unequal sizes through",
        "            if size != 1 and out[j] not in (1, size):\n",
        "            if False:\n",
        "no check: [2, 3] and [3, 2] give [3, 2]",
    ),
    _m(
        "5.9",
        "conv2d forgets dilation",
        "    out = [(x + 2 * p[i] - d[i] * (kernel[i] - 1) - 1) // s[i] + 1 for i, x in "
        "enumerate(spatial)]",
        "    out = [(x + 2 * p[i] - (kernel[i] - 1) - 1) // s[i] + 1 for i, x in "
        "enumerate(spatial)]",
        "the rule without dilation",
    ),
    # --- Task 5.10: meta kernels -------------------------------------------------------------
    _m(
        "5.10",
        "fake kernel returns the first input's shape",
        "        return a.new_empty(matmul_shape(a.shape, b.shape))",
        "        return a.new_empty(a.shape)",
        "a fake that says nothing true about the result",
    ),
    _m(
        "5.10",
        "C++ meta kernel keeps in_features",
        "  shape.push_back(w.size(0));",
        "  shape.push_back(w.size(1));",
        "w is [out, in]: the wrong dimension",
        CPP,
    ),
]

ACCEPTED_SURVIVORS: dict[str, str] = {}

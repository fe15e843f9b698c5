// RUN: iree-opt '--pass-pipeline=builtin.module(builtin.module(hal.executable(iree-hal-serialize-target-executables{debug-level=0 dump-binaries-path= dump-intermediates-path= target=llvm-cpu target-registry=unknown})))' --verify-diagnostics %s

#executable_target_embedded_elf_x86_64 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "znver3", cpu_features = "+adx,+aes,+avx,+avx2,+bmi,+bmi2,+clflushopt,+clwb,+clzero,+crc32,+cx16,+cx8,+f16c,+fma,+fsgsbase,+fxsr,+invpcid,+lzcnt,+mmx,+movbe,+mwaitx,+pclmul,+pku,+popcnt,+prfchw,+rdpid,+rdpru,+rdrnd,+rdseed,+sahf,+sha,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+sse4a,+ssse3,+vaes,+vpclmulqdq,+wbnoinvd,+x87,+xsave,+xsavec,+xsaveopt,+xsaves,+64bit,+adx,+aes,-amx-avx512,-amx-bf16,-amx-complex,-amx-fp16,-amx-fp8,-amx-int8,-amx-movrs,-amx-tile,+avx,-avx10.1,-avx10.2,-avx10v2aux,+avx2,-avx512bf16,-avx512bitalg,-avx512bmm,-avx512bw,-avx512cd,-avx512dq,-avx512f,-avx512fp16,-avx512ifma,-avx512vbmi,-avx512vbmi2,-avx512vl,-avx512vnni,-avx512vp2intersect,-avx512vpopcntdq,-avxifma,-avxneconvert,-avxvnni,-avxvnniint16,-avxvnniint8,+bmi,+bmi2,-ccmp,-cf,-cldemote,+clflushopt,+clwb,+clzero,+cmov,-cmpccxadd,+crc32,+cx16,+cx8,-egpr,-enqcmd,+f16c,+fma,-fma4,+fsgsbase,+fxsr,-gfni,-hreset,+invpcid,-jmpabs,-kl,-lwp,+lzcnt,+mmx,+movbe,-movdir64b,-movdiri,-movrs,-mwaitx,-ndd,-nf,+pclmul,-pconfig,-pku,+popcnt,-ppx,-prefetchi,+prfchw,-ptwrite,-push2pop2,-raoint,+rdpid,-rdpru,+rdrnd,+rdseed,-rtm,+sahf,-serialize,-sgx,+sha,-sha512,+shstk,-sm3,-sm4,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+sse4a,+ssse3,-tbm,-tsxldtrk,-uintr,-usermsr,+vaes,+vpclmulqdq,-waitpkg,-wbnoinvd,-widekl,-xop,+xsave,+xsavec,+xsaveopt,+xsaves,-zu", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 32 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>
#map = affine_map<(d0) -> (d0)>
#pipeline_layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__hoisted_tensor_2xbf16 {stream.affinity.default = #hal.device.affinity<@__device_0>} : tensor<2xbf16>
  util.initializer attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
    %cst = arith.constant dense<0> : tensor<2xi8>
    %0 = tensor.empty() : tensor<2xbf16>
    %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%cst : tensor<2xi8>) outs(%0 : tensor<2xbf16>) {
    ^bb0(%in: i8, %out: bf16):
      %3 = arith.sitofp %in : i8 to bf16
      linalg.yield %3 : bf16
    } -> tensor<2xbf16>
    %2 = iree_tensor_ext.compute_barrier.end %1 : tensor<2xbf16> -> tensor<2xbf16>
    util.global.store %2, @__hoisted_tensor_2xbf16 : tensor<2xbf16>
    util.return
  }
  module attributes {iree.consteval} {
    util.global private @__device_0 : !hal.device
    util.initializer {
      %c18_i32 = arith.constant 18 : i32
      %false = arith.constant false
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %0 = util.null : !hal.device
      %device_count = hal.devices.count : index
      cf.br ^bb1(%c0, %c0, %0 : index, index, !hal.device)
    ^bb1(%1: index, %2: index, %3: !hal.device):  // 2 preds: ^bb0, ^bb4
      %4 = util.cmp.eq %3, %0 : !hal.device
      %5 = arith.cmpi slt, %1, %device_count : index
      %6 = arith.andi %4, %5 : i1
      cf.cond_br %6, ^bb2(%1, %2 : index, index), ^bb5
    ^bb2(%7: index, %8: index):  // pred: ^bb1
      %device_n = hal.devices.get %7 : !hal.device
      %ok, %value = hal.device.query<%device_n : !hal.device> key("hal.device.id" :: "local*") : i1, i1 = false
      cf.cond_br %value, ^bb3, ^bb4(%false : i1)
    ^bb3:  // pred: ^bb2
      %ok_0, %value_1 = hal.device.query<%device_n : !hal.device> key("hal.executable.format" :: "embedded-elf-x86_64") : i1, i1 = false
      cf.br ^bb4(%value_1 : i1)
    ^bb4(%9: i1):  // 2 preds: ^bb2, ^bb3
      %10 = arith.cmpi eq, %8, %c0 : index
      %11 = arith.select %9, %c1, %c0 : index
      %12 = arith.addi %8, %11 : index
      %13 = arith.andi %9, %10 : i1
      %14 = arith.select %13, %device_n, %0 : !hal.device
      %15 = arith.addi %7, %c1 : index
      cf.br ^bb1(%15, %12, %14 : index, index, !hal.device)
    ^bb5:  // pred: ^bb1
      cf.cond_br %4, ^bb6, ^bb7
    ^bb6:  // pred: ^bb5
      util.status.check_ok %c18_i32, "HAL device `__device_0` not found or unavailable: #hal.device.target<\22local\22, [#hal.executable.target<\22llvm-cpu\22, \22embedded-elf-x86_64\22, {cpu = \22znver3\22, cpu_features = \22+adx,+aes,+avx,+avx2,+bmi,+bmi2,+clflushopt,+clwb,+clzero,+crc32,+cx16,+cx8,+f16c,+fma,+fsgsbase,+fxsr,+invpcid,+lzcnt,+mmx,+movbe,+mwaitx,+pclmul,+pku,+popcnt,+prfchw,+rdpid,+rdpru,+rdrnd,+rdseed,+sahf,+sha,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+sse4a,+ssse3,+vaes,+vpclmulqdq,+wbnoinvd,+x87,+xsave,+xsavec,+xsaveopt,+xsaves,+64bit,+adx,+aes,-amx-avx512,-amx-bf16,-amx-complex,-amx-fp16,-amx-fp8,-amx-int8,-amx-movrs,-amx-tile,+avx,-avx10.1,-avx10.2,-avx10v2aux,+avx2,-avx512bf16,-avx512bitalg,-avx512bmm,-avx512bw,-avx512cd,-avx512dq,-avx512f,-avx512fp16,-avx512ifma,-avx512vbmi,-avx512vbmi2,-avx512vl,-avx512vnni,-avx512vp2intersect,-avx512vpopcntdq,-avxifma,-avxneconvert,-avxvnni,-avxvnniint16,-avxvnniint8,+bmi,+bmi2,-ccmp,-cf,-cldemote,+clflushopt,+clwb,+clzero,+cmov,-cmpccxadd,+crc32,+cx16,+cx8,-egpr,-enqcmd,+f16c,+fma,-fma4,+fsgsbase,+fxsr,-gfni,-hreset,+invpcid,-jmpabs,-kl,-lwp,+lzcnt,+mmx,+movbe,-movdir64b,-movdiri,-movrs,-mwaitx,-ndd,-nf,+pclmul,-pconfig,-pku,+popcnt,-ppx,-prefetchi,+prfchw,-ptwrite,-push2pop2,-raoint,+rdpid,-rdpru,+rdrnd,+rdseed,-rtm,+sahf,-serialize,-sgx,+sha,-sha512,+shstk,-sm3,-sm4,+sse,+sse2,+sse3,+sse4.1,+sse4.2,+sse4a,+ssse3,-tbm,-tsxldtrk,-uintr,-usermsr,+vaes,+vpclmulqdq,-waitpkg,-wbnoinvd,-widekl,-xop,+xsave,+xsavec,+xsaveopt,+xsaves,-zu\22, data_layout = \22e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128\22, iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 32 : i64, target_triple = \22x86_64-unknown-unknown-eabi-elf\22}>]>"
      cf.br ^bb7
    ^bb7:  // 2 preds: ^bb5, ^bb6
      util.global.store %3, @__device_0 : !hal.device
      util.return
    }
    util.global private @__device_0_query_0_hal_executable_format_embedded_elf_x86_64 : i1
    util.initializer {
      %__device_0 = util.global.load @__device_0 : !hal.device
      %ok, %value = hal.device.query<%__device_0 : !hal.device> key("hal.executable.format" :: "embedded-elf-x86_64") : i1, i1 = false
      util.global.store %value, @__device_0_query_0_hal_executable_format_embedded_elf_x86_64 : i1
      util.return
    }
    util.global private @__device_0_executable_0_jit_eval_dispatch_0 : !hal.executable
    util.initializer {
      %c-1_i64 = arith.constant -1 : i64
      %c-1 = arith.constant -1 : index
      %c0 = arith.constant 0 : index
      %c14_i32 = arith.constant 14 : i32
      %0 = util.null : !hal.executable
      %__device_0_query_0_hal_executable_format_embedded_elf_x86_64 = util.global.load @__device_0_query_0_hal_executable_format_embedded_elf_x86_64 : i1
      %__device_0 = util.global.load @__device_0 : !hal.device
      %1 = arith.select %__device_0_query_0_hal_executable_format_embedded_elf_x86_64, %c0, %c-1 : index
      %2 = arith.cmpi eq, %1, %c0 : index
      cf.cond_br %2, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      %executable = hal.executable.create device(%__device_0 : !hal.device) affinity(%c-1_i64) target(@jit_eval_dispatch_0::@embedded_elf_x86_64) : !hal.executable
      cf.br ^bb3(%executable : !hal.executable)
    ^bb2:  // pred: ^bb0
      util.status.check_ok %c14_i32, "HAL device `__device_0` does not support any variant of executable `jit_eval_dispatch_0`; available formats: [embedded-elf-x86_64]"
      cf.br ^bb3(%0 : !hal.executable)
    ^bb3(%3: !hal.executable):  // 2 preds: ^bb1, ^bb2
      util.global.store %3, @__device_0_executable_0_jit_eval_dispatch_0 : !hal.executable
      util.return
    }
    hal.executable private @jit_eval_dispatch_0 {
      // expected-error @+2 {{failed to link executable and generate target dylib (check above for more specific error messages)}}
      // expected-error @+1 {{failed to serialize executable for target backend llvm-cpu}}
      hal.executable.variant public @embedded_elf_x86_64 target(#executable_target_embedded_elf_x86_64) {
        hal.executable.export public @jit_eval_dispatch_0_elementwise_2_i8xbf16 ordinal(0) layout(#pipeline_layout) <workgroup_size = [1 : index, 1 : index, 1 : index]>
        builtin.module attributes {llvm.data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", llvm.target_triple = "x86_64-unknown-unknown-eabi-elf"} {
          llvm.func @jit_eval_dispatch_0_elementwise_2_i8xbf16(%arg0: !llvm.ptr {llvm.align = 16 : i64, llvm.noalias, llvm.nonnull, llvm.noundef}, %arg1: !llvm.ptr {llvm.align = 16 : i64, llvm.noalias, llvm.nonnull, llvm.noundef}, %arg2: !llvm.ptr {llvm.align = 16 : i64, llvm.noalias, llvm.nonnull, llvm.noundef}) -> i32 {
            %0 = llvm.mlir.constant(0 : i32) : i32
            %1 = llvm.mlir.constant(64 : i64) : i64
            %2 = llvm.mlir.constant(true) : i1
            %3 = llvm.load %arg1 : !llvm.ptr -> !llvm.struct<"iree_hal_executable_dispatch_state_v0_t", (i32, i32, i16, i16, i32, i32, i16, i8, i8, ptr, ptr, ptr)>
            %4 = llvm.extractvalue %3[10] : !llvm.struct<"iree_hal_executable_dispatch_state_v0_t", (i32, i32, i16, i16, i32, i32, i16, i8, i8, ptr, ptr, ptr)> 
            %5 = llvm.load %4 : !llvm.ptr -> !llvm.ptr
            llvm.intr.assume %2 ["align"(%5, %1 : !llvm.ptr, i64)] : i1
            %6 = llvm.load %arg1 : !llvm.ptr -> !llvm.struct<"iree_hal_executable_dispatch_state_v0_t", (i32, i32, i16, i16, i32, i32, i16, i8, i8, ptr, ptr, ptr)>
            %7 = llvm.extractvalue %6[10] : !llvm.struct<"iree_hal_executable_dispatch_state_v0_t", (i32, i32, i16, i16, i32, i32, i16, i8, i8, ptr, ptr, ptr)> 
            %8 = llvm.getelementptr %7[1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
            %9 = llvm.load %8 : !llvm.ptr -> !llvm.ptr
            llvm.intr.assume %2 ["align"(%9, %1 : !llvm.ptr, i64)] : i1
            %10 = llvm.load %5 <alignment = 1> : !llvm.ptr -> vector<2xi8>
            %11 = llvm.sitofp %10 : vector<2xi8> to vector<2xbf16>
            %12 = llvm.bitcast %11 : vector<2xbf16> to vector<2xi16>
            llvm.store %12, %9 <alignment = 2> : vector<2xi16>, !llvm.ptr
            llvm.return %0 : i32
          }
        }
      }
    }
    util.func private @__jit_eval_memoize_apply(%arg0: !hal.device, %arg1: i64) -> !hal.command_buffer attributes {inlining_policy = #util.inline.never} {
      %c4 = arith.constant 4 : index
      %c2 = arith.constant 2 : index
      %c1 = arith.constant 1 : index
      %c0 = arith.constant 0 : index
      %__device_0_executable_0_jit_eval_dispatch_0 = util.global.load immutable @__device_0_executable_0_jit_eval_dispatch_0 : !hal.executable
      %cmd = hal.command_buffer.create device(%arg0 : !hal.device) mode("None") categories("Transfer|Dispatch") affinity(%arg1) bindings(%c2) : !hal.command_buffer
      %function_id = hal.executable.lookup.function target(%__device_0_executable_0_jit_eval_dispatch_0 : !hal.executable) function(@jit_eval_dispatch_0::@embedded_elf_x86_64::@jit_eval_dispatch_0_elementwise_2_i8xbf16) : i64
      hal.command_buffer.dispatch<%cmd : !hal.command_buffer> target(%__device_0_executable_0_jit_eval_dispatch_0 : !hal.executable)[%function_id] workgroups([%c1, %c1, %c1]) bindings([
        (%c0 : index)[%c0, %c2], 
        (%c1 : index)[%c0, %c4]
      ]) flags("None")
      hal.command_buffer.execution_barrier<%cmd : !hal.command_buffer> source("Dispatch|Transfer|CommandRetire") target("CommandIssue|Dispatch|Transfer") flags("None")
      hal.command_buffer.finalize<%cmd : !hal.command_buffer>
      util.return %cmd : !hal.command_buffer
    }
    util.global private @__jit_eval_memoize_result_0_device_0 : !hal.command_buffer
    util.initializer {
      %c-1_i64 = arith.constant -1 : i64
      %__device_0 = util.global.load immutable @__device_0 : !hal.device
      %0 = util.call @__jit_eval_memoize_apply(%__device_0, %c-1_i64) : (!hal.device, i64) -> !hal.command_buffer
      util.global.store %0, @__jit_eval_memoize_result_0_device_0 : !hal.command_buffer
      util.return
    }
    util.func private @__jit_eval_memoize_lookup(%arg0: !hal.device, %arg1: i64) -> !hal.command_buffer {
      %0 = util.null : !hal.command_buffer
      %__device_0 = util.global.load immutable @__device_0 : !hal.device
      %1 = util.cmp.eq %arg0, %__device_0 : !hal.device
      cf.cond_br %1, ^bb1, ^bb2(%0 : !hal.command_buffer)
    ^bb1:  // pred: ^bb0
      %__jit_eval_memoize_result_0_device_0 = util.global.load immutable @__jit_eval_memoize_result_0_device_0 : !hal.command_buffer
      cf.br ^bb2(%__jit_eval_memoize_result_0_device_0 : !hal.command_buffer)
    ^bb2(%2: !hal.command_buffer):  // 2 preds: ^bb0, ^bb1
      util.return %2 : !hal.command_buffer
    }
    util.func public @jit_eval(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {iree.abi.stub, iree.reflection = {iree.abi.declaration = "sync func @jit_eval(%input0: tensor<2x1xi8>) -> (%output0: tensor<2xbf16>)"}} {
      %c-1_i32 = arith.constant -1 : i32
      %c0_i64 = arith.constant 0 : i64
      %0 = util.null : !hal.fence
      %c-1_i64 = arith.constant -1 : i64
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %memory_type = hal.memory_type<"DeviceVisible|DeviceLocal"> : i32
      %buffer_usage = hal.buffer_usage<"TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage"> : i32
      %__device_0 = util.global.load immutable @__device_0 : !hal.device
      %element_type_i8 = hal.element_type<i8> : i32
      %dense_row_major = hal.encoding_type<dense_row_major> : i32
      hal.buffer_view.assert<%arg0 : !hal.buffer_view> message("input0") shape([%c2, %c1]) type(%element_type_i8) encoding(%dense_row_major)
      %buffer = hal.buffer_view.buffer<%arg0 : !hal.buffer_view> : !hal.buffer
      %allocator = hal.device.allocator<%__device_0 : !hal.device> : !hal.allocator
      hal.buffer.assert<%buffer : !hal.buffer> message("tensor") allocator(%allocator : !hal.allocator) minimum_length(%c2) type(DeviceVisible) usage("TransferSource|TransferTarget|Transfer|DispatchStorageRead|DispatchStorageWrite|DispatchStorage")
      %fence = hal.fence.create device(%__device_0 : !hal.device) flags("None") : !hal.fence
      %transient_buffer = hal.device.queue.alloca<%__device_0 : !hal.device> affinity(%c-1_i64) wait(%0) signal(%fence) pool(%c0_i64) type(%memory_type) usage(%buffer_usage) flags("None") : !hal.buffer{%c4}
      %1 = util.call @__jit_eval_memoize_lookup(%__device_0, %c-1_i64) : (!hal.device, i64) -> !hal.command_buffer
      %fence_0 = hal.fence.create device(%__device_0 : !hal.device) flags("None") : !hal.fence
      hal.device.queue.execute.indirect<%__device_0 : !hal.device> affinity(%c-1_i64) wait(%fence) signal(%fence_0) commands(%1) bindings([
        (%buffer : !hal.buffer)[%c0, %c2], 
        (%transient_buffer : !hal.buffer)[%c0, %c4]
      ]) flags("None")
      %status = hal.fence.await until([%fence_0]) timeout_millis(%c-1_i32) flags("None") : i32
      util.status.check_ok %status, "failed to wait on timepoint"
      %element_type_bf16 = hal.element_type<bf16> : i32
      %view = hal.buffer_view.create buffer(%transient_buffer : !hal.buffer)[%c0, %c4] shape([%c2]) type(%element_type_bf16) encoding(%dense_row_major) : !hal.buffer_view
      util.return %view : !hal.buffer_view
    }
  }
}

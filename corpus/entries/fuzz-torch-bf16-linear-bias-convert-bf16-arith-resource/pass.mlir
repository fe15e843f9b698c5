#composite_of_64b = #util.composite<64xi8, [
    dense_resource<torch_tensor_2_1_torch.bfloat16_1> : tensor<2x1xbf16>,
    dense<0> : vector<60xi8>,
]>
#executable_target_embedded_elf_x86_64 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "generic", cpu_features = "", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 16 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>
#pipeline_layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__hoisted_tensor_2x2xbf16 : !stream.resource<constant>
  util.initializer {
    %c0 = arith.constant 0 : index
    %c0_i64 = arith.constant 0 : i64
    %0 = stream.timepoint.immediate => !stream.timepoint
    %c8 = arith.constant 8 : index
    %buffer_cst = util.buffer.constant <alignment = 64> : !util.buffer = #composite_of_64b
    %c64 = arith.constant 64 : index
    %did_map, %result = stream.resource.try_map on(#hal.device.affinity<@__device_0>) %buffer_cst[%c0] : !util.buffer -> i1, !stream.resource<constant>{%c64}
    cf.cond_br %did_map, ^bb2(%0, %result : !stream.timepoint, !stream.resource<constant>), ^bb1
  ^bb1:  // pred: ^bb0
    %1 = stream.resource.alloc uninitialized on(#hal.device.affinity<@__device_0>) : !stream.resource<constant>{%c64}
    %file = stream.file.constant on(#hal.device.affinity<@__device_0>) %buffer_cst[%c0 for %c64] : !util.buffer{%c64} -> !stream.file
    %2 = stream.file.read on(#hal.device.affinity<@__device_0>) await(%0) => %file[%c0_i64], %1[%c0], %c64 : !stream.file -> !stream.resource<constant>{%c64} => !stream.timepoint
    cf.br ^bb2(%2, %1 : !stream.timepoint, !stream.resource<constant>)
  ^bb2(%3: !stream.timepoint, %4: !stream.resource<constant>):  // 2 preds: ^bb0, ^bb1
    %result_0, %result_timepoint = stream.resource.alloca uninitialized on(#hal.device.affinity<@__device_0>) : !stream.resource<constant>{%c8} => !stream.timepoint
    %5 = stream.timepoint.join max(%3, %result_timepoint) => !stream.timepoint
    %6 = stream.cmd.execute once on(#hal.device.affinity<@__device_0>) await(%5) => with(%4 as %arg0: !stream.resource<constant>{%c64}, %result_0 as %arg1: !stream.resource<constant>{%c8}) {
      stream.cmd.dispatch @_initializer_0_dispatch_0::@embedded_elf_x86_64::@_initializer_0_dispatch_0_elementwise_broadcast_2x2_bf16 {
        ro %arg0[%c0 for %c64] : !stream.resource<constant>{%c64},
        wo %arg1[%c0 for %c8] : !stream.resource<constant>{%c8}
      }
    } => !stream.timepoint
    %7 = stream.resource.dealloca origin await(%6) => %4 : !stream.resource<constant>{%c64} => !stream.timepoint
    %8 = stream.timepoint.await sync %7 => %result_0 : !stream.resource<constant>{%c8}
    util.global.store %8, @__hoisted_tensor_2x2xbf16 : !stream.resource<constant>
    util.return
  }
  hal.executable private @main$async_dispatch_0 {
    hal.executable.variant public @embedded_elf_x86_64 target(#executable_target_embedded_elf_x86_64) {
      hal.executable.export public @main$async_dispatch_0_batch_matmul_2x2x2x1_bf16xbf16xf32 ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_0_batch_matmul_2x2x2x1_bf16xbf16xf32() -> memref<2xbf16> {
          %cst = arith.constant dense_resource<torch_tensor_2_torch.bfloat16_1> : tensor<2xbf16>
          %0 = bufferization.to_buffer %cst read_only : tensor<2xbf16> to memref<2xbf16>
          return %0 : memref<2xbf16>
        }
        iree_codegen.dispatch_config @main$async_dispatch_0_batch_matmul_2x2x2x1_bf16xbf16xf32 workgroup_size = [1, 1, 1] {
        ^bb0(%arg0: !hal.device):
          %c2 = arith.constant 2 : index
          %c1 = arith.constant 1 : index
          %c1_0 = arith.constant 1 : index
          iree_codegen.yield %c2, %c1, %c1_0 : index, index, index
        }
      }
    }
  }
}

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_2_1_torch.bfloat16_1: "0x0200000000000000",
      torch_tensor_2_torch.bfloat16_1: "0x0200000000000000"
    }
  }
#-}

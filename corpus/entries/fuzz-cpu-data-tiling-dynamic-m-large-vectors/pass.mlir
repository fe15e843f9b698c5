#executable_target_embedded_elf_x86_64 = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "generic", cpu_features = "", data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128", iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>, max_stack_allocation_size = 32768 : i64, native_vector_size = 16 : i64, target_triple = "x86_64-unknown-unknown-eabi-elf"}>
#pipeline_layout = #hal.pipeline.layout<constants = 10, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
#translation = #iree_codegen.translation_info<pipeline = #iree_cpu.pipeline<Mmt4dTilingExpert>>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__hoisted_tensor_1x2048xi8__encoded : !stream.resource<constant>
  util.initializer {
    %c0 = arith.constant 0 : index
    %c10240 = arith.constant 10240 : index
    %c8192 = arith.constant 8192 : index
    %c0_i8 = arith.constant 0 : i8
    %c-128_i8 = arith.constant -128 : i8
    %c2048 = arith.constant 2048 : index
    %c12288 = arith.constant 12288 : index
    %result, %result_timepoint = stream.resource.alloca uninitialized on(#hal.device.affinity<@__device_0>) : !stream.resource<constant>{%c12288} => !stream.timepoint
    %result_0, %result_timepoint_1 = stream.resource.alloca uninitialized on(#hal.device.affinity<@__device_0>) : !stream.resource<transient>{%c10240} => !stream.timepoint
    %0 = stream.timepoint.join max(%result_timepoint, %result_timepoint_1) => !stream.timepoint
    %1 = stream.cmd.execute once on(#hal.device.affinity<@__device_0>) await(%0) => with(%result as %arg0: !stream.resource<constant>{%c12288}, %result_0 as %arg1: !stream.resource<transient>{%c10240}) {
      stream.cmd.fill %c-128_i8, %arg1[%c0 for %c2048] : i8 -> !stream.resource<transient>{%c10240}
      stream.cmd.concurrent {
        stream.cmd.dispatch @_encoding_0::@embedded_elf_x86_64::@_encoding_0_encode_1x2048xi8_to_1x2048xi8 {
          ro %arg1[%c0 for %c10240] : !stream.resource<transient>{%c10240},
          wo %arg0[%c0 for %c12288] : !stream.resource<constant>{%c12288}
        }
        stream.cmd.fill %c0_i8, %arg1[%c2048 for %c8192] : i8 -> !stream.resource<transient>{%c10240}
      }
      stream.cmd.dispatch @_encoding_1::@embedded_elf_x86_64::@_encoding_1_encode_2048x1xf32_to_2048x1xf32 {
        ro %arg1[%c0 for %c10240] : !stream.resource<transient>{%c10240},
        wo %arg0[%c0 for %c12288] : !stream.resource<constant>{%c12288}
      }
    } => !stream.timepoint
    %2 = stream.resource.dealloca on(#hal.device.affinity<@__device_0>) await(%1) => %result_0 : !stream.resource<transient>{%c10240} => !stream.timepoint
    %3 = stream.timepoint.await sync %2 => %result : !stream.resource<constant>{%c12288}
    util.global.store %3, @__hoisted_tensor_1x2048xi8__encoded : !stream.resource<constant>
    util.return
  }
  hal.executable private @main$async_dispatch_0 {
    hal.executable.variant public @embedded_elf_x86_64 target(#executable_target_embedded_elf_x86_64) {
      hal.executable.export public @main$async_dispatch_0_matmul_Dx2048x1_i8xi8xi32 ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device, %arg1: index, %arg2: index) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice(%arg1, %arg2)
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_0_matmul_Dx2048x1_i8xi8xi32(%arg0: index, %arg1: f32, %arg2: tensor<?x2048x4x1xf32>, %arg3: tensor<?x2048xf32>, %arg4: index, %arg5: f32, %arg6: index, %arg7: index, %arg8: index, %arg9: index, %arg10: index) -> tensor<?x2048xf32> attributes {translation_info = #translation} {
          %0:2 = scf.forall (%arg11, %arg12) = (0, 0) to (256, %arg0) step (16, 64) shared_outs(%arg13 = %arg3, %arg14 = %arg2) -> (tensor<?x2048xf32>, tensor<?x2048x4x1xf32>) {
            %1 = tensor.empty(%arg12) : tensor<16x?x8x4xf32>
            %2 = tensor.empty(%arg12) : tensor<?x128xf32>
            %3 = vector.create_mask %arg8, %arg7, %arg9, %arg10 : vector<16x64x8x4xi1>
            %4 = vector.transfer_read %1[%arg4, %arg4, %arg4, %arg4], %arg1, %3 {in_bounds = [true, true, true, true]} : tensor<16x?x8x4xf32>, vector<16x64x8x4xf32>
            %5 = vector.transpose %4, [1, 3, 0, 2] : vector<16x64x8x4xf32> to vector<64x4x16x8xf32>
            %6 = vector.shape_cast %5 : vector<64x4x16x8xf32> to vector<256x128xf32>
            %7 = vector.create_mask %arg12, %arg6 : vector<256x128xi1>
            %8 = vector.transfer_write %6, %2[%arg4, %arg4], %7 {in_bounds = [true, true]} : vector<256x128xf32>, tensor<?x128xf32>
            %extracted_slice = tensor.extract_slice %arg14[%arg12, %arg11, 0, 0] [%arg12, 128, 4, 1] [1, 1, 1, 1] : tensor<?x2048x4x1xf32> to tensor<?x128x4x1xf32>
            %pack = linalg.pack %8 padding_value(%arg5 : f32) outer_dims_perm = [0, 1] inner_dims_pos = [0, 1] inner_tiles = [4, 1] into %extracted_slice : tensor<?x128xf32> -> tensor<?x128x4x1xf32>
            scf.forall.in_parallel {
              tensor.parallel_insert_slice %pack into %arg14[%arg12, %arg11, 0, 0] [%arg12, 128, 4, 1] [1, 1, 1, 1] : tensor<?x128x4x1xf32> into tensor<?x2048x4x1xf32>
            }
          } {mapping = [#iree_codegen.workgroup_mapping<y>, #iree_codegen.workgroup_mapping<x>]}
          return %0#0 : tensor<?x2048xf32>
        }
        iree_codegen.dispatch_config @main$async_dispatch_0_matmul_Dx2048x1_i8xi8xi32 {
        ^bb0(%arg0: !hal.device, %arg1: index, %arg2: index):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice(%arg1, %arg2)
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
}

#executable_target_vmvx_bytecode_fb = #hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver = #iree_cpu.vmvx_encoding_resolver<>, ukernels = "none"}>
#pipeline_layout = #hal.pipeline.layout<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  hal.executable private @main$async_dispatch_1 {
    hal.executable.variant public @vmvx_bytecode_fb target(#executable_target_vmvx_bytecode_fb) {
      hal.executable.export public @main$async_dispatch_1_conv_Dx2x2048x32x2_i8xi8xi32 ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device, %arg1: index) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice(%arg1)
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_1_conv_Dx2x2048x32x2_i8xi8xi32(%arg0: index, %arg1: index, %arg2: index, %arg3: index, %arg4: index) {
          %c0 = arith.constant 0 : index
          %alloca = memref.alloca() alignment = 64 : memref<9007199254740991x2x64x32xi32>
          %0 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) alignment(64) offset(%c0) flags(Indirect) : memref<?x32x2x2048xi8, #hal.descriptor_type<storage_buffer>>{%arg0}
          scf.for %arg5 = %c0 to %arg0 step %arg4 {
            scf.for %arg6 = %c0 to %arg1 step %arg4 {
              scf.for %arg7 = %c0 to %arg2 step %arg4 {
                scf.for %arg8 = %c0 to %arg3 step %arg4 {
                  %1 = memref.load %alloca[%arg5, %arg6, %arg7, %arg8] : memref<9007199254740991x2x64x32xi32>
                  %2 = arith.sitofp %1 : i32 to f32
                  %3 = arith.fptosi %2 : f32 to i8
                  memref.store %3, %0[%arg5, %arg8, %arg6, %arg7] : memref<?x32x2x2048xi8, #hal.descriptor_type<storage_buffer>>
                }
              }
            }
          }
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_1_conv_Dx2x2048x32x2_i8xi8xi32 workgroup_size = [1, 1, 1] {
        ^bb0(%arg0: !hal.device, %arg1: index):
          %c32 = arith.constant 32 : index
          %c1 = arith.constant 1 : index
          %c1_0 = arith.constant 1 : index
          iree_codegen.yield %c32, %c1, %c1_0 : index, index, index
        }
      }
    }
  }
}

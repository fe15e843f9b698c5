#config = #iree_cpu.lowering_config<distribution = [64, 64, 64, 0, 0, 0]>
#executable_target_vmvx_bytecode_fb = #hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver = #iree_cpu.vmvx_encoding_resolver<>, ukernels = "none"}>
#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4, d2 * 4 + d5)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d4, d5)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
#pipeline_layout = #hal.pipeline.layout<constants = 4, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
#translation = #iree_codegen.translation_info<pipeline = #iree_codegen.vmvx_pipeline>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  hal.executable private @main$async_dispatch_0 {
    hal.executable.variant public @vmvx_bytecode_fb target(#executable_target_vmvx_bytecode_fb) {
      hal.executable.export public @main$async_dispatch_0_conv_2x2xDx3x4x2_f32 ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device, %arg1: index, %arg2: index) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice(%arg1, %arg2)
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_0_conv_2x2xDx3x4x2_f32(%arg0: tensor<2x2x?xf32>, %arg1: tensor<2x2x3x4x?xf32>, %arg2: tensor<2x3x2x2xf32>) -> tensor<2x2x?xf32> attributes {translation_info = #translation} {
          %0 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%arg1, %arg2 : tensor<2x2x3x4x?xf32>, tensor<2x3x2x2xf32>) outs(%arg0 : tensor<2x2x?xf32>) attrs =  {lowering_config = #config} {
          ^bb0(%in: f32, %in_0: f32, %out: f32):
            linalg.yield %out : f32
          } -> tensor<2x2x?xf32>
          return %0 : tensor<2x2x?xf32>
        }
        iree_codegen.dispatch_config @main$async_dispatch_0_conv_2x2xDx3x4x2_f32 {
        ^bb0(%arg0: !hal.device, %arg1: index, %arg2: index):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice(%arg1, %arg2)
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
}

// RUN: iree-opt '--pass-pipeline=builtin.module(hal.executable(hal.executable.variant(builtin.module(func.func(iree-spirv-tile-and-distribute)))))' --verify-diagnostics %s

#config = #iree_codegen.lowering_config<tile_sizes = [[1, 1, 64], [1, 1, 1]]>
#executable_target_vulkan_spirv_fb = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "vp_android_baseline_2022", features = "spirv:v1.3,cap:Shader", wgp = <compute = fp32|int32, storage = b32, subgroup = none, subgroup_size_choices = [64], max_workgroup_sizes = [128, 128, 64], max_thread_count_per_workgroup = 128, max_workgroup_memory_bytes = 16384, max_workgroup_counts = [65535, 65535, 65535]>>}>
#map = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>
#map1 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>
#map2 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d2)>
#map3 = affine_map<(d0, d1, d2, d3, d4) -> ()>
#map4 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2)>
#map5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1)>
#map6 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map7 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#pipeline_layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
#translation = #iree_codegen.translation_info<pipeline = #iree_gpu.spirv_pipeline<BaseDistribute> workgroup_size = [64, 1, 1]>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  hal.executable private @forward$async_dispatch_0 {
    hal.executable.variant public @vulkan_spirv_fb target(#executable_target_vulkan_spirv_fb) {
      hal.executable.export public @forward$async_dispatch_0_attention_4x128x64x64x128 ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module attributes {hal.executable.target = #executable_target_vulkan_spirv_fb} {
        func.func @forward$async_dispatch_0_attention_4x128x64x64x128(%arg0: memref<4x128x64xf16, #hal.descriptor_type<storage_buffer>>, %arg1: memref<4x128x64xf16, #hal.descriptor_type<storage_buffer>>, %arg2: memref<4x128x64xf16, #hal.descriptor_type<storage_buffer>>, %arg3: memref<4x128x64xf16, #hal.descriptor_type<storage_buffer>>, %arg4: f32, %arg5: f32, %arg6: f32) attributes {translation_info = #translation} {
          scf.forall (%arg7, %arg8) in (4, 128) {
            %subview = memref.subview %arg3[%arg7, %arg8, 0] [1, 1, 64] [1, 1, 1] : memref<4x128x64xf16, #hal.descriptor_type<storage_buffer>> to memref<1x1x64xf16, strided<[8192, 64, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
            %subview_0 = memref.subview %arg2[%arg7, 0, 0] [1, 128, 64] [1, 1, 1] : memref<4x128x64xf16, #hal.descriptor_type<storage_buffer>> to memref<1x128x64xf16, strided<[8192, 64, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
            %subview_1 = memref.subview %arg1[%arg7, 0, 0] [1, 128, 64] [1, 1, 1] : memref<4x128x64xf16, #hal.descriptor_type<storage_buffer>> to memref<1x128x64xf16, strided<[8192, 64, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
            %alloc = memref.alloc() alignment = 64 : memref<1x1x64xf32, #gpu.address_space<workgroup>>
            linalg.fill ins(%arg5 : f32) outs(%alloc : memref<1x1x64xf32, #gpu.address_space<workgroup>>)
            %alloc_2 = memref.alloc() alignment = 64 : memref<1x1xf32, #gpu.address_space<workgroup>>
            %alloc_3 = memref.alloc() alignment = 64 : memref<1x1xf32, #gpu.address_space<workgroup>>
            linalg.fill ins(%arg6 : f32) outs(%alloc_2 : memref<1x1xf32, #gpu.address_space<workgroup>>)
            linalg.fill ins(%arg5 : f32) outs(%alloc_3 : memref<1x1xf32, #gpu.address_space<workgroup>>)
            // expected-error @+1 {{'iree_linalg_ext.online_attention' op result #0 must be variadic of ranked tensor of any non-token type values, but got 'memref<1x1x1xf32, strided<[64, 64, 1], }}
            iree_linalg_ext.online_attention <indexing_maps = [#map, #map1, #map2, #map3, #map4, #map5, #map5]> {lowering_config = #config} ins(%subview, %subview_0, %subview_1, %arg4 : memref<1x1x64xf16, strided<[8192, 64, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>, memref<1x128x64xf16, strided<[8192, 64, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>, memref<1x128x64xf16, strided<[8192, 64, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>, f32) outs(%alloc, %alloc_2, %alloc_3 : memref<1x1x64xf32, #gpu.address_space<workgroup>>, memref<1x1xf32, #gpu.address_space<workgroup>>, memref<1x1xf32, #gpu.address_space<workgroup>>) {
            ^bb0(%arg9: f32):
              iree_linalg_ext.yield %arg9 : f32
            }
            %subview_4 = memref.subview %arg0[%arg7, %arg8, 0] [1, 1, 64] [1, 1, 1] : memref<4x128x64xf16, #hal.descriptor_type<storage_buffer>> to memref<1x1x64xf16, strided<[8192, 64, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>
            linalg.generic {indexing_maps = [#map6, #map7, #map7], iterator_types = ["parallel", "parallel", "parallel"]} ins(%alloc_3, %alloc : memref<1x1xf32, #gpu.address_space<workgroup>>, memref<1x1x64xf32, #gpu.address_space<workgroup>>) outs(%subview_4 : memref<1x1x64xf16, strided<[8192, 64, 1], offset: ?>, #hal.descriptor_type<storage_buffer>>) {
            ^bb0(%in: f32, %in_5: f32, %out: f16):
              %cst = arith.constant 0.000000e+00 : f16
              linalg.yield %cst : f16
            }
          } {mapping = [#iree_codegen.workgroup_mapping<y>, #iree_codegen.workgroup_mapping<x>]}
          return
        }
        iree_codegen.dispatch_config @forward$async_dispatch_0_attention_4x128x64x64x128 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
}

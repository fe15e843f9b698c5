// RUN: iree-opt '--pass-pipeline=builtin.module(hal.executable(hal.executable.variant(builtin.module(func.func(iree-codegen-gpu-fuse-and-hoist-parallel-loops)))))' --verify-diagnostics %s

#executable_target_rocm_hsaco_fb = #hal.executable.target<"rocm", "rocm-hsaco-fb", {abi = "hip", iree.encoding.resolver = #iree_gpu.gpu_encoding_resolver<>, iree_codegen.default_tuning_spec = #rocm.builtin.tuning_module<"iree_default_tuning_spec_gfx942.mlir">, iree_codegen.target_info = #iree_gpu.target<arch = "gfx942", features = "", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<MFMA_F32_16x16x16_BF16>, <MFMA_F32_32x32x8_BF16>, <MFMA_F32_16x16x32_F8E5M2FNUZ>, <MFMA_F32_16x16x32_F8E5M2FNUZ_F8E4M3FNUZ>, <MFMA_F32_16x16x32_F8E4M3FNUZ>, <MFMA_F32_16x16x32_F8E4M3FNUZ_F8E5M2FNUZ>, <MFMA_F32_32x32x16_F8E5M2FNUZ>, <MFMA_F32_32x32x16_F8E5M2FNUZ_F8E4M3FNUZ>, <MFMA_F32_32x32x16_F8E4M3FNUZ>, <MFMA_F32_32x32x16_F8E4M3FNUZ_F8E5M2FNUZ>, <MFMA_I32_16x16x32_I8>, <MFMA_I32_32x32x16_I8>, <MFMA_F64_16x16x4_F64>, <MFMA_F32_16x16x4_F32>, <MFMA_F32_16x16x16_F16>, <MFMA_F32_32x32x8_F16>, <MFMA_F32_4x4x4x16B_F16>, <MFMA_F32_16x16x4x4B_F16>, <MFMA_F32_32x32x4x2B_F16>, <MFMA_F32_4x4x4x16B_BF16>, <MFMA_F32_16x16x4x4B_BF16>, <MFMA_F32_32x32x4x2B_BF16>, <MFMA_F32_4x4x1x16B_F32>, <MFMA_F32_16x16x1x4B_F32>, <MFMA_F32_32x32x1x2B_F32>, <MFMA_F64_4x4x4x4B_F64>, <MFMA_I32_4x4x4x16B_I8>, <MFMA_I32_16x16x4x4B_I8>, <MFMA_I32_32x32x4x2B_I8>], subgroup_size_choices = [64], max_workgroup_sizes = [1024, 1024, 1024], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 65536, max_workgroup_counts = [2147483647, 2147483647, 2147483647], max_load_instruction_bits = 128, simds_per_wgp = 4, vgpr_space_bits = 16384, dma_sizes = [32], workgroup_memory_bank_count = 32>>, ukernels = "none"}>
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0, d1)>
#pipeline_layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
#translation = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<TileAndFuse> workgroup_size = [64, 1, 1] subgroup_size = 64>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  hal.executable private @main$async_dispatch_0 {
    hal.executable.variant public @rocm_hsaco_fb target(#executable_target_rocm_hsaco_fb) {
      hal.executable.export public @main$async_dispatch_0_elementwise_2x8x5_i8xf32 ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        // expected-error @+1 {{'func.func' op failed to apply fusion + hoisting patterns (set 3)}}
        func.func @main$async_dispatch_0_elementwise_2x8x5_i8xf32(%arg0: tensor<2x8x5xi8>, %arg1: tensor<2x8x5xf32>, %arg2: tensor<2x2xf32>, %arg3: index, %arg4: index, %arg5: index) -> tensor<2x2xf32> attributes {translation_info = #translation} {
          %0 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x8x5xi8>) outs(%arg1 : tensor<2x8x5xf32>) {
          ^bb0(%in: i8, %out: f32):
            %2 = arith.sitofp %in : i8 to f32
            linalg.yield %2 : f32
          } -> tensor<2x8x5xf32>
          %1 = scf.forall (%arg6, %arg7) in (2, 1) shared_outs(%arg8 = %arg2) -> (tensor<2x2xf32>) {
            %cst = arith.constant dense<0.000000e+00> : tensor<1x2xf32>
            %2 = scf.for %arg9 = %arg3 to %arg4 step %arg5 iter_args(%arg10 = %cst) -> (tensor<1x2xf32>) {
              %3 = scf.forall (%arg11, %arg12) in (1, 2) shared_outs(%arg13 = %arg10) -> (tensor<1x2xf32>) {
                %cst_0 = arith.constant dense<0.000000e+00> : tensor<1x1xf32>
                %cst_1 = arith.constant dense<0.000000e+00> : tensor<1x4xf32>
                %extracted_slice = tensor.extract_slice %0[%arg6, %arg9, %arg12] [1, 4, 1] [1, 1, 4] : tensor<2x8x5xf32> to tensor<1x4x1xf32>
                %4 = linalg.generic {indexing_maps = [#map1, #map2, #map3], iterator_types = ["parallel", "parallel", "reduction"]} ins(%extracted_slice, %cst_1 : tensor<1x4x1xf32>, tensor<1x4xf32>) outs(%cst_0 : tensor<1x1xf32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{reduction = [0, 0, 4], thread = [1, 1, 0], workgroup = [1, 64, 0]}>} {
                ^bb0(%in: f32, %in_2: f32, %out: f32):
                  linalg.yield %out : f32
                } -> tensor<1x1xf32>
                scf.forall.in_parallel {
                  tensor.parallel_insert_slice %4 into %arg13[0, %arg12] [1, 1] [1, 1] : tensor<1x1xf32> into tensor<1x2xf32>
                }
              } {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}
              scf.yield %3 : tensor<1x2xf32>
            }
            scf.forall.in_parallel {
              tensor.parallel_insert_slice %2 into %arg8[%arg6, 0] [1, 2] [1, 1] : tensor<1x2xf32> into tensor<2x2xf32>
            }
          } {mapping = [#iree_codegen.workgroup_mapping<y>, #iree_codegen.workgroup_mapping<x>]}
          return %1 : tensor<2x2xf32>
        }
        iree_codegen.dispatch_config @main$async_dispatch_0_elementwise_2x8x5_i8xf32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
}

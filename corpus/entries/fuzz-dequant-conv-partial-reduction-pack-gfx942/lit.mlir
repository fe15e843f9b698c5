// RUN: iree-opt '--pass-pipeline=builtin.module(hal.executable(hal.executable.variant(builtin.module(func.func(iree-codegen-gpu-pack-partial-reductions)))))' --verify-diagnostics %s

#executable_target_rocm_hsaco_fb = #hal.executable.target<"rocm", "rocm-hsaco-fb", {abi = "hip", iree.encoding.resolver = #iree_gpu.gpu_encoding_resolver<>, iree_codegen.default_tuning_spec = #rocm.builtin.tuning_module<"iree_default_tuning_spec_gfx942.mlir">, iree_codegen.target_info = #iree_gpu.target<arch = "gfx942", features = "", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<MFMA_F32_16x16x16_BF16>, <MFMA_F32_32x32x8_BF16>, <MFMA_F32_16x16x32_F8E5M2FNUZ>, <MFMA_F32_16x16x32_F8E5M2FNUZ_F8E4M3FNUZ>, <MFMA_F32_16x16x32_F8E4M3FNUZ>, <MFMA_F32_16x16x32_F8E4M3FNUZ_F8E5M2FNUZ>, <MFMA_F32_32x32x16_F8E5M2FNUZ>, <MFMA_F32_32x32x16_F8E5M2FNUZ_F8E4M3FNUZ>, <MFMA_F32_32x32x16_F8E4M3FNUZ>, <MFMA_F32_32x32x16_F8E4M3FNUZ_F8E5M2FNUZ>, <MFMA_I32_16x16x32_I8>, <MFMA_I32_32x32x16_I8>, <MFMA_F64_16x16x4_F64>, <MFMA_F32_16x16x4_F32>, <MFMA_F32_16x16x16_F16>, <MFMA_F32_32x32x8_F16>, <MFMA_F32_4x4x4x16B_F16>, <MFMA_F32_16x16x4x4B_F16>, <MFMA_F32_32x32x4x2B_F16>, <MFMA_F32_4x4x4x16B_BF16>, <MFMA_F32_16x16x4x4B_BF16>, <MFMA_F32_32x32x4x2B_BF16>, <MFMA_F32_4x4x1x16B_F32>, <MFMA_F32_16x16x1x4B_F32>, <MFMA_F32_32x32x1x2B_F32>, <MFMA_F64_4x4x4x4B_F64>, <MFMA_I32_4x4x4x16B_I8>, <MFMA_I32_16x16x4x4B_I8>, <MFMA_I32_32x32x4x2B_I8>], subgroup_size_choices = [64], max_workgroup_sizes = [1024, 1024, 1024], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 65536, max_workgroup_counts = [2147483647, 2147483647, 2147483647], max_load_instruction_bits = 128, simds_per_wgp = 4, vgpr_space_bits = 16384, dma_sizes = [32], workgroup_memory_bank_count = 32>>, ukernels = "none"}>
#map = affine_map<(d0, d1, d2) -> (d1, d0 + d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0)>
#pipeline_layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
#translation = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [64, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = false, use_igemm_convolution = false>}>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  hal.executable private @main$async_dispatch_1 {
    hal.executable.variant public @rocm_hsaco_fb target(#executable_target_rocm_hsaco_fb) {
      hal.executable.export public @main$async_dispatch_1_conv_127x64x2_i8xi8xi32 ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @main$async_dispatch_1_conv_127x64x2_i8xi8xi32(%arg0: tensor<1xi8>, %arg1: tensor<127xi32>) -> tensor<127xi32> attributes {translation_info = #translation} {
          %0 = scf.forall (%arg2) in (127) shared_outs(%arg3 = %arg1) -> (tensor<127xi32>) {
            %cst = arith.constant dense<0> : tensor<1x1xi8>
            %cst_0 = arith.constant dense<0> : tensor<1xi32>
            // expected-error @+1 {{failed to pack reduction dimensions for partial reduction}}
            %1 = linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "reduction", "reduction"]} ins(%cst, %arg0 : tensor<1x1xi8>, tensor<1xi8>) outs(%cst_0 : tensor<1xi32>) attrs =  {lowering_config = #iree_gpu.lowering_config<{lane_basis = [[1, 1, 1], [0, 1, 2]], partial_reduction = [0, 1, 2], subgroup_basis = [[1, 1, 1], [0, 1, 2]], thread = [0, 1, 2], workgroup = [1, 0, 0]}>} {
            ^bb0(%in: i8, %in_1: i8, %out: i32):
              linalg.yield %out : i32
            } -> tensor<1xi32>
            scf.forall.in_parallel {
              tensor.parallel_insert_slice %1 into %arg3[%arg2] [1] [1] : tensor<1xi32> into tensor<127xi32>
            }
          } {mapping = [#iree_codegen.workgroup_mapping<x>]}
          return %0 : tensor<127xi32>
        }
        iree_codegen.dispatch_config @main$async_dispatch_1_conv_127x64x2_i8xi8xi32 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
}

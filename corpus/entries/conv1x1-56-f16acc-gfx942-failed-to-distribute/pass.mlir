#executable_target_rocm_hsaco_fb = #hal.executable.target<"rocm", "rocm-hsaco-fb", {abi = "hip", iree.encoding.resolver = #iree_gpu.gpu_encoding_resolver<>, iree_codegen.default_tuning_spec = #rocm.builtin.tuning_module<"iree_default_tuning_spec_gfx942.mlir">, iree_codegen.target_info = #iree_gpu.target<arch = "gfx942", features = "", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<MFMA_F32_16x16x16_BF16>, <MFMA_F32_32x32x8_BF16>, <MFMA_F32_16x16x32_F8E5M2FNUZ>, <MFMA_F32_16x16x32_F8E5M2FNUZ_F8E4M3FNUZ>, <MFMA_F32_16x16x32_F8E4M3FNUZ>, <MFMA_F32_16x16x32_F8E4M3FNUZ_F8E5M2FNUZ>, <MFMA_F32_32x32x16_F8E5M2FNUZ>, <MFMA_F32_32x32x16_F8E5M2FNUZ_F8E4M3FNUZ>, <MFMA_F32_32x32x16_F8E4M3FNUZ>, <MFMA_F32_32x32x16_F8E4M3FNUZ_F8E5M2FNUZ>, <MFMA_I32_16x16x32_I8>, <MFMA_I32_32x32x16_I8>, <MFMA_F64_16x16x4_F64>, <MFMA_F32_16x16x4_F32>, <MFMA_F32_16x16x16_F16>, <MFMA_F32_32x32x8_F16>, <MFMA_F32_4x4x4x16B_F16>, <MFMA_F32_16x16x4x4B_F16>, <MFMA_F32_32x32x4x2B_F16>, <MFMA_F32_4x4x4x16B_BF16>, <MFMA_F32_16x16x4x4B_BF16>, <MFMA_F32_32x32x4x2B_BF16>, <MFMA_F32_4x4x1x16B_F32>, <MFMA_F32_16x16x1x4B_F32>, <MFMA_F32_32x32x1x2B_F32>, <MFMA_F64_4x4x4x4B_F64>, <MFMA_I32_4x4x4x16B_I8>, <MFMA_I32_16x16x4x4B_I8>, <MFMA_I32_32x32x4x2B_I8>], subgroup_size_choices = [64], max_workgroup_sizes = [1024, 1024, 1024], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 65536, max_workgroup_counts = [2147483647, 2147483647, 2147483647], max_load_instruction_bits = 128, simds_per_wgp = 4, vgpr_space_bits = 16384, dma_sizes = [32], workgroup_memory_bank_count = 32>>, ukernels = "none"}>
#map = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d0, d2, d3, d5)>
#map1 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d5, d1, d4)>
#map2 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d1, d4)>
#nested = #iree_vector_ext.nested_layout<subgroup_tile = [2, 2], batch_tile = [2, 4], outer_tile = [1, 1], thread_tile = [4, 16], element_tile = [4, 1], subgroup_strides = [2, 1], thread_strides = [16, 1]>
#pipeline_layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
#translation = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<VectorDistribute> workgroup_size = [256, 1, 1] subgroup_size = 64, {gpu_pipeline_options = #iree_gpu.pipeline_options<no_reduce_shared_memory_bank_conflicts = false, use_igemm_convolution = false>}>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  hal.executable private @block_dispatch_0 {
    hal.executable.variant public @rocm_hsaco_fb target(#executable_target_rocm_hsaco_fb) {
      hal.executable.export public @block_dispatch_0_matmul_like_3136x128x64_f16 ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module {
        func.func @block_dispatch_0_matmul_like_3136x128x64_f16(%arg0: memref<3136x128xf16, #amdgpu.address_space<fat_raw_buffer>>, %arg1: memref<64x128xf16, #amdgpu.address_space<fat_raw_buffer>>, %arg2: memref<3136x64xf16, #amdgpu.address_space<fat_raw_buffer>>, %arg3: f16, %arg4: memref<64x64xf16, #gpu.address_space<workgroup>>, %arg5: memref<64x128xf16, #gpu.address_space<workgroup>>, %arg6: index) attributes {translation_info = #translation} {
          scf.forall (%arg7) = (0) to (3136) step (64) {
            gpu.barrier memfence [#gpu.address_space<workgroup>]
            %subview = memref.subview %arg0[%arg7, 0] [64, 128] [1, 1] : memref<3136x128xf16, #amdgpu.address_space<fat_raw_buffer>> to memref<64x128xf16, strided<[128, 1], offset: ?>, #amdgpu.address_space<fat_raw_buffer>>
            %0 = vector.transfer_read %arg2[%arg7, %arg6], %arg3 {in_bounds = [true, true]} : memref<3136x64xf16, #amdgpu.address_space<fat_raw_buffer>>, vector<64x64xf16>
            vector.transfer_write %0, %arg4[%arg6, %arg6] {in_bounds = [true, true]} : vector<64x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
            %1 = vector.transfer_read %arg1[%arg6, %arg6], %arg3 {in_bounds = [true, true]} : memref<64x128xf16, #amdgpu.address_space<fat_raw_buffer>>, vector<64x128xf16>
            vector.transfer_write %1, %arg5[%arg6, %arg6] {in_bounds = [true, true]} : vector<64x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
            gpu.barrier memfence [#gpu.address_space<workgroup>]
            %2 = vector.transfer_read %arg4[%arg6, %arg6], %arg3 {in_bounds = [true, true]} : memref<64x64xf16, #gpu.address_space<workgroup>>, vector<64x64xf16>
            %3 = vector.transfer_read %arg5[%arg6, %arg6], %arg3 {in_bounds = [true, true]} : memref<64x128xf16, #gpu.address_space<workgroup>>, vector<64x128xf16>
            %4 = vector.transfer_read %arg0[%arg7, %arg6], %arg3 {in_bounds = [true, true]} : memref<3136x128xf16, #amdgpu.address_space<fat_raw_buffer>>, vector<64x128xf16>
            %5 = vector.shape_cast %2 : vector<64x64xf16> to vector<4x16x4x16xf16>
            %6 = vector.transpose %5, [0, 2, 1, 3] : vector<4x16x4x16xf16> to vector<4x4x16x16xf16>
            %7 = vector.shape_cast %3 : vector<64x128xf16> to vector<4x16x8x16xf16>
            %8 = vector.shape_cast %4 : vector<64x128xf16> to vector<4x16x8x16xf16>
            %9 = vector.broadcast %6 : vector<4x4x16x16xf16> to vector<8x16x4x4x16x16xf16>
            %10 = vector.contract {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"], kind = #vector.kind<add>} %9, %7, %8 : vector<8x16x4x4x16x16xf16>, vector<4x16x8x16xf16> into vector<4x16x8x16xf16>
            %11 = vector.shape_cast %10 : vector<4x16x8x16xf16> to vector<64x128xf16>
            %12 = iree_vector_ext.to_layout %11 to layout(#nested) : vector<64x128xf16>
            vector.transfer_write %12, %subview[%arg6, %arg6] {in_bounds = [true, true]} : vector<64x128xf16>, memref<64x128xf16, strided<[128, 1], offset: ?>, #amdgpu.address_space<fat_raw_buffer>>
          } {mapping = [#iree_codegen.workgroup_mapping<x>]}
          memref.dealloc %arg4 : memref<64x64xf16, #gpu.address_space<workgroup>>
          memref.dealloc %arg5 : memref<64x128xf16, #gpu.address_space<workgroup>>
          return
        }
        iree_codegen.dispatch_config @block_dispatch_0_matmul_like_3136x128x64_f16 {
        ^bb0(%arg0: !hal.device):
          %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
          iree_codegen.yield %x, %y, %z : index, index, index
        }
      }
    }
  }
}

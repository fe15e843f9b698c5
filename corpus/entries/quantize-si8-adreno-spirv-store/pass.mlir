#executable_target_vulkan_spirv_fb = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "adreno", features = "spirv:v1.6,cap:Shader", wgp = <compute = fp32|fp16|int32|int16|int8, storage = b64|b32|b16, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, subgroup_size_choices = [64], max_workgroup_sizes = [1024, 1024, 1024], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 32768, max_workgroup_counts = [65535, 65535, 65535]>>}>
#pipeline_layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  hal.executable private @main_graph$async_dispatch_0 {
    hal.executable.variant public @vulkan_spirv_fb target(#executable_target_vulkan_spirv_fb) {
      hal.executable.export public @main_graph$async_dispatch_0_elementwise_213248_f32xi8 ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module attributes {hal.executable.target = #executable_target_vulkan_spirv_fb, spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, Float16, Int16, Int8, StorageBuffer16BitAccess, StorageUniform16, StoragePushConstant16, GroupNonUniformShuffle, GroupNonUniformShuffleRelative, GroupNonUniformArithmetic, DotProduct, DotProductInput4x8BitPacked, DotProductInputAll, DotProductInput4x8Bit], [SPV_KHR_16bit_storage, SPV_KHR_integer_dot_product]>, Qualcomm, #spirv.resource_limits<max_compute_shared_memory_size = 32768, max_compute_workgroup_invocations = 1024, max_compute_workgroup_size = [1024 : i32, 1024 : i32, 1024 : i32], subgroup_size = 64, min_subgroup_size = 64, max_subgroup_size = 64, cooperative_matrix_properties_khr = []>>} {
        func.func @main_graph$async_dispatch_0_elementwise_213248_f32xi8(%arg0: vector<4xi8>, %arg1: index, %arg2: memref<?xvector<4xi8>, #spirv.storage_class<StorageBuffer>>) {
          memref.store %arg0, %arg2[%arg1] : memref<?xvector<4xi8>, #spirv.storage_class<StorageBuffer>>
          return
        }
        iree_codegen.dispatch_config @main_graph$async_dispatch_0_elementwise_213248_f32xi8 workgroup_size = [64, 1, 1] {
        ^bb0(%arg0: !hal.device):
          %c833 = arith.constant 833 : index
          %c1 = arith.constant 1 : index
          %c1_0 = arith.constant 1 : index
          iree_codegen.yield %c833, %c1, %c1_0 : index, index, index
        }
      }
    }
  }
}

#executable_target_vulkan_spirv_fb = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "valhall1", features = "spirv:v1.6,cap:Shader", wgp = <compute = fp32|fp16|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, subgroup_size_choices = [16], max_workgroup_sizes = [512, 512, 512], max_thread_count_per_workgroup = 512, max_workgroup_memory_bytes = 32768, max_workgroup_counts = [65535, 65535, 65535]>>}>
#pipeline_layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  hal.executable private @main$async_dispatch_0 {
    hal.executable.variant public @vulkan_spirv_fb target(#executable_target_vulkan_spirv_fb) {
      hal.executable.export public @main$async_dispatch_0_elementwise_16_i64 ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module attributes {hal.executable.target = #executable_target_vulkan_spirv_fb} {
        func.func @main$async_dispatch_0_elementwise_16_i64(%arg0: index, %arg1: index, %arg2: index) {
          %0 = hal.interface.binding.subspan layout(#pipeline_layout) binding(0) alignment(64) offset(%arg2) flags("ReadOnly|Indirect") : memref<?xi64, #spirv.storage_class<StorageBuffer>>{%arg1}
          %1 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) alignment(64) offset(%arg2) flags(Indirect) : memref<?xi64, #spirv.storage_class<StorageBuffer>>{%arg1}
          %2 = memref.load %0[%arg0] : memref<?xi64, #spirv.storage_class<StorageBuffer>>
          %3 = vector.broadcast %2 : i64 to vector<1xi64>
          %4 = vector.extract %3[0] : i64 from vector<1xi64>
          memref.store %4, %1[%arg0] : memref<?xi64, #spirv.storage_class<StorageBuffer>>
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_0_elementwise_16_i64 workgroup_size = [16, 1, 1] {
        ^bb0(%arg0: !hal.device):
          %c1 = arith.constant 1 : index
          %c1_0 = arith.constant 1 : index
          %c1_1 = arith.constant 1 : index
          iree_codegen.yield %c1, %c1_0, %c1_1 : index, index, index
        }
      }
    }
  }
}

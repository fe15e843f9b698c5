#executable_target_vulkan_spirv_fb = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "valhall1", features = "spirv:v1.6,cap:Shader", wgp = <compute = fp32|fp16|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, subgroup_size_choices = [16], max_workgroup_sizes = [512, 512, 512], max_thread_count_per_workgroup = 512, max_workgroup_memory_bytes = 32768, max_workgroup_counts = [65535, 65535, 65535]>>}>
#map = affine_map<()[s0] -> (s0 ceildiv 16, 65535)>
#pipeline_layout = #hal.pipeline.layout<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  hal.executable private @main$async_dispatch_0 {
    hal.executable.variant public @vulkan_spirv_fb target(#executable_target_vulkan_spirv_fb) {
      hal.executable.export public @main$async_dispatch_0_elementwise_D_i64 ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device, %arg1: index) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice(%arg1)
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module attributes {hal.executable.target = #executable_target_vulkan_spirv_fb} {
        func.func @main$async_dispatch_0_elementwise_D_i64(%arg0: index, %arg1: index, %arg2: index, %arg3: i32, %arg4: index) {
          %0 = arith.extui %arg3 : i32 to i64
          %1 = hal.interface.binding.subspan layout(#pipeline_layout) binding(1) alignment(64) offset(%arg4) flags(Indirect) : memref<?xi64, #spirv.storage_class<StorageBuffer>>{%arg2}
          scf.for %arg5 = %arg1 to %arg2 step %arg0 {
            %false = arith.constant false
            scf.if %false {
              %2 = math.absi %0 : i64
              memref.store %2, %1[%arg5] : memref<?xi64, #spirv.storage_class<StorageBuffer>>
            }
          }
          return
        }
        iree_codegen.dispatch_config @main$async_dispatch_0_elementwise_D_i64 workgroup_size = [16, 1, 1] {
        ^bb0(%arg0: !hal.device, %arg1: index):
          %0 = affine.min #map()[%arg1]
          %c1 = arith.constant 1 : index
          %c1_0 = arith.constant 1 : index
          iree_codegen.yield %0, %c1, %c1_0 : index, index, index
        }
      }
    }
  }
}

#executable_target_vulkan_spirv_fb = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "adreno", features = "spirv:v1.6,cap:Shader", wgp = <compute = fp32|fp16|int32|int16|int8, storage = b64|b32|b16, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, subgroup_size_choices = [64], max_workgroup_sizes = [1024, 1024, 1024], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 32768, max_workgroup_counts = [65535, 65535, 65535]>>}>
#pipeline_layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  hal.executable private @conv_block_dispatch_0 {
    hal.executable.variant public @vulkan_spirv_fb target(#executable_target_vulkan_spirv_fb) {
      hal.executable.export public @conv_block_dispatch_0_matmul_like_3136x128x64_i8xi8xi32 ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device) -> (index, index, index) {
        %x, %y, %z = iree_tensor_ext.dispatch.workgroup_count_from_slice()
        hal.return %x, %y, %z : index, index, index
      }
      builtin.module attributes {hal.executable.target = #executable_target_vulkan_spirv_fb, spirv.target_env = #spirv.target_env<#spirv.vce<v1.6, [Shader, Float16, Int16, Int8, StorageBuffer16BitAccess, StorageUniform16, StoragePushConstant16, GroupNonUniformShuffle, GroupNonUniformShuffleRelative, GroupNonUniformArithmetic, DotProduct, DotProductInput4x8BitPacked, DotProductInputAll, DotProductInput4x8Bit], [SPV_KHR_16bit_storage, SPV_KHR_integer_dot_product]>, Qualcomm, #spirv.resource_limits<max_compute_shared_memory_size = 32768, max_compute_workgroup_invocations = 1024, max_compute_workgroup_size = [1024 : i32, 1024 : i32, 1024 : i32], subgroup_size = 64, min_subgroup_size = 64, max_subgroup_size = 64, cooperative_matrix_properties_khr = []>>} {
        spirv.module Logical GLSL450 {
          spirv.GlobalVariable @__builtin__WorkgroupId__ built_in("WorkgroupId") : !spirv.ptr<vector<3xi32>, Input>
          spirv.GlobalVariable @__builtin__LocalInvocationId__ built_in("LocalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
          spirv.GlobalVariable @__resource_var_0_0_ bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>
          spirv.GlobalVariable @__resource_var_0_1_ bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>
          spirv.GlobalVariable @__resource_var_0_2_ bind(0, 2) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>
          spirv.func @conv_block_dispatch_0_matmul_like_3136x128x64_i8xi8xi32(%arg0: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg1: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg2: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg3: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg4: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg5: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg6: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg7: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg8: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg9: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg10: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg11: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg12: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg13: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg14: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg15: !spirv.ptr<vector<4xi32>, StorageBuffer>, %arg16: vector<4xi32>, %arg17: vector<4xi32>, %arg18: vector<4xi32>, %arg19: vector<4xi32>, %arg20: vector<4xi32>, %arg21: vector<4xi32>, %arg22: vector<4xi32>, %arg23: vector<4xi32>, %arg24: vector<4xi32>, %arg25: vector<4xi32>, %arg26: vector<4xi32>, %arg27: vector<4xi32>, %arg28: vector<4xi32>, %arg29: vector<4xi32>, %arg30: vector<4xi32>, %arg31: vector<4xi32>, %arg32: !spirv.ptr<vector<4xi32>, Function>, %arg33: !spirv.ptr<vector<4xi32>, Function>, %arg34: !spirv.ptr<vector<4xi32>, Function>, %arg35: !spirv.ptr<vector<4xi32>, Function>, %arg36: !spirv.ptr<vector<4xi32>, Function>, %arg37: !spirv.ptr<vector<4xi32>, Function>, %arg38: !spirv.ptr<vector<4xi32>, Function>, %arg39: !spirv.ptr<vector<4xi32>, Function>, %arg40: !spirv.ptr<vector<4xi32>, Function>, %arg41: !spirv.ptr<vector<4xi32>, Function>, %arg42: !spirv.ptr<vector<4xi32>, Function>, %arg43: !spirv.ptr<vector<4xi32>, Function>, %arg44: !spirv.ptr<vector<4xi32>, Function>, %arg45: !spirv.ptr<vector<4xi32>, Function>, %arg46: !spirv.ptr<vector<4xi32>, Function>, %arg47: !spirv.ptr<vector<4xi32>, Function>, %arg48: vector<4xi32>, %arg49: vector<4xi32>, %arg50: vector<4xi32>, %arg51: vector<4xi32>, %arg52: vector<4xi32>, %arg53: vector<4xi32>, %arg54: vector<4xi32>, %arg55: vector<4xi32>, %arg56: vector<4xi32>, %arg57: vector<4xi32>, %arg58: vector<4xi32>, %arg59: vector<4xi32>, %arg60: vector<4xi32>, %arg61: vector<4xi32>, %arg62: vector<4xi32>, %arg63: vector<4xi32>, %arg64: i32, %arg65: !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, %arg66: vector<4xi32>, %arg67: i32, %arg68: i32) "None" {
            spirv.mlir.loop {
              spirv.Branch ^bb1(%arg67, %arg63, %arg62, %arg61, %arg60, %arg59, %arg58, %arg57, %arg56, %arg55, %arg54, %arg53, %arg52, %arg51, %arg50, %arg49, %arg48 : i32, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>)
            ^bb1(%0: i32, %1: vector<4xi32>, %2: vector<4xi32>, %3: vector<4xi32>, %4: vector<4xi32>, %5: vector<4xi32>, %6: vector<4xi32>, %7: vector<4xi32>, %8: vector<4xi32>, %9: vector<4xi32>, %10: vector<4xi32>, %11: vector<4xi32>, %12: vector<4xi32>, %13: vector<4xi32>, %14: vector<4xi32>, %15: vector<4xi32>, %16: vector<4xi32>):  // 2 preds: ^bb0, ^bb2
              %17 = spirv.SLessThan %0, %arg68 : i32
              spirv.BranchConditional %17, ^bb2, ^bb3
            ^bb2:  // pred: ^bb1
              %cst0_i32 = spirv.Constant 0 : i32
              %18 = spirv.AccessChain %arg65[%cst0_i32, %arg64] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %19 = spirv.Load "StorageBuffer" %18 : vector<4xi32>
              %20 = builtin.unrealized_conversion_cast %19 : vector<4xi32> to vector<4xi8>
              %c0_i8 = arith.constant 0 : i8
              %c0_i8_0 = arith.constant 0 : i8
              %c0_i8_1 = arith.constant 0 : i8
              %c0_i8_2 = arith.constant 0 : i8
              %21 = spirv.CompositeConstruct %c0_i8, %c0_i8_0, %c0_i8_1, %c0_i8_2 : (i8, i8, i8, i8) -> vector<4xi8>
              %c0_i32 = arith.constant 0 : i32
              %22 = spirv.SDotAccSat %20, %21, %c0_i32 : vector<4xi8> -> i32
              %23 = spirv.CompositeInsert %22, %arg66[2 : i32] : i32 into vector<4xi32>
              spirv.Store "Function" %arg47, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg46, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg45, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg44, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg43, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg42, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg41, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg40, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg39, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg38, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg37, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg36, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg35, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg34, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg33, %arg66 : vector<4xi32>
              spirv.Store "Function" %arg32, %23 : vector<4xi32>
              spirv.Branch ^bb1(%0, %arg66, %arg66, %arg66, %arg66, %arg66, %arg66, %arg66, %arg66, %arg66, %arg66, %arg66, %arg66, %arg66, %arg66, %arg66, %23 : i32, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>)
            ^bb3:  // pred: ^bb1
              spirv.mlir.merge
            }
            spirv.Store "StorageBuffer" %arg15, %arg31 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg14, %arg30 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg13, %arg29 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg12, %arg28 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg11, %arg27 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg10, %arg26 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg9, %arg25 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg8, %arg24 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg7, %arg23 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg6, %arg22 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg5, %arg21 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg4, %arg20 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg3, %arg19 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg2, %arg18 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg1, %arg17 : vector<4xi32>
            spirv.Store "StorageBuffer" %arg0, %arg16 : vector<4xi32>
            spirv.Return
          }
        }
        iree_codegen.dispatch_config @conv_block_dispatch_0_matmul_like_3136x128x64_i8xi8xi32 workgroup_size = [32, 2, 1] {
        ^bb0(%arg0: !hal.device):
          %c98 = arith.constant 98 : index
          %c1 = arith.constant 1 : index
          iree_codegen.yield %c98, %c1, %c1 : index, index, index
        }
      }
    }
  }
}

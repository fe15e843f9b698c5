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
          spirv.func @conv_block_dispatch_0_matmul_like_3136x128x64_i8xi8xi32() "None" attributes {gpu.known_block_size = array<i32: 32, 2, 1>, hal.executable.target = #executable_target_vulkan_spirv_fb, spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [32, 2, 1]>} {
            %cst32_i32 = spirv.Constant 32 : i32
            %cst15_i32 = spirv.Constant 15 : i32
            %cst14_i32 = spirv.Constant 14 : i32
            %cst13_i32 = spirv.Constant 13 : i32
            %cst12_i32 = spirv.Constant 12 : i32
            %cst11_i32 = spirv.Constant 11 : i32
            %cst10_i32 = spirv.Constant 10 : i32
            %cst9_i32 = spirv.Constant 9 : i32
            %cst8_i32 = spirv.Constant 8 : i32
            %cst7_i32 = spirv.Constant 7 : i32
            %cst6_i32 = spirv.Constant 6 : i32
            %cst5_i32 = spirv.Constant 5 : i32
            %cst3_i32 = spirv.Constant 3 : i32
            %cst2_i32 = spirv.Constant 2 : i32
            %cst1_i32 = spirv.Constant 1 : i32
            %cst288_i32 = spirv.Constant 288 : i32
            %cst320_i32 = spirv.Constant 320 : i32
            %cst352_i32 = spirv.Constant 352 : i32
            %cst384_i32 = spirv.Constant 384 : i32
            %cst416_i32 = spirv.Constant 416 : i32
            %cst448_i32 = spirv.Constant 448 : i32
            %cst480_i32 = spirv.Constant 480 : i32
            %cst240_i32 = spirv.Constant 240 : i32
            %cst224_i32 = spirv.Constant 224 : i32
            %cst208_i32 = spirv.Constant 208 : i32
            %cst192_i32 = spirv.Constant 192 : i32
            %cst176_i32 = spirv.Constant 176 : i32
            %cst160_i32 = spirv.Constant 160 : i32
            %cst144_i32 = spirv.Constant 144 : i32
            %cst128_i32 = spirv.Constant 128 : i32
            %cst112_i32 = spirv.Constant 112 : i32
            %cst96_i32 = spirv.Constant 96 : i32
            %cst80_i32 = spirv.Constant 80 : i32
            %cst48_i32 = spirv.Constant 48 : i32
            %cst256_i32 = spirv.Constant 256 : i32
            %cst4_i32 = spirv.Constant 4 : i32
            %cst64_i32 = spirv.Constant 64 : i32
            %cst0_i32 = spirv.Constant 0 : i32
            %cst1024_i32 = spirv.Constant 1024 : i32
            %cst512_i32 = spirv.Constant 512 : i32
            %cst16_i32 = spirv.Constant 16 : i32
            %cst100352_i32 = spirv.Constant 100352 : i32
            %cst2048_i32 = spirv.Constant 2048 : i32
            %cst_vec_4xi32 = spirv.Constant dense<0> : vector<4xi32>
            %cst0_i32_0 = spirv.Constant 0 : i32
            %cst50176_i32 = spirv.Constant 50176 : i32
            %__resource_var_0_0__addr = spirv.mlir.addressof @__resource_var_0_0_ : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>
            %__resource_var_0_1__addr = spirv.mlir.addressof @__resource_var_0_1_ : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>
            %__resource_var_0_2__addr = spirv.mlir.addressof @__resource_var_0_2_ : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>
            %__builtin__LocalInvocationId___addr = spirv.mlir.addressof @__builtin__LocalInvocationId__ : !spirv.ptr<vector<3xi32>, Input>
            %0 = spirv.Load "Input" %__builtin__LocalInvocationId___addr : vector<3xi32>
            %1 = spirv.CompositeExtract %0[1 : i32] : vector<3xi32>
            %2 = spirv.IMul %1, %cst16_i32 {no_signed_wrap} : i32
            %__builtin__LocalInvocationId___addr_1 = spirv.mlir.addressof @__builtin__LocalInvocationId__ : !spirv.ptr<vector<3xi32>, Input>
            %3 = spirv.Load "Input" %__builtin__LocalInvocationId___addr_1 : vector<3xi32>
            %4 = spirv.CompositeExtract %3[0 : i32] : vector<3xi32>
            %5 = spirv.IAdd %2, %cst1_i32 : i32
            %6 = spirv.IAdd %2, %cst2_i32 : i32
            %7 = spirv.IAdd %2, %cst3_i32 : i32
            %8 = spirv.IAdd %2, %cst4_i32 : i32
            %9 = spirv.IAdd %2, %cst5_i32 : i32
            %10 = spirv.IAdd %2, %cst6_i32 : i32
            %11 = spirv.IAdd %2, %cst7_i32 : i32
            %12 = spirv.IAdd %2, %cst8_i32 : i32
            %13 = spirv.IAdd %2, %cst9_i32 : i32
            %14 = spirv.IAdd %2, %cst10_i32 : i32
            %15 = spirv.IAdd %2, %cst11_i32 : i32
            %16 = spirv.IAdd %2, %cst12_i32 : i32
            %17 = spirv.IAdd %2, %cst13_i32 : i32
            %18 = spirv.IAdd %2, %cst14_i32 : i32
            %19 = spirv.IAdd %2, %cst15_i32 : i32
            %__builtin__WorkgroupId___addr = spirv.mlir.addressof @__builtin__WorkgroupId__ : !spirv.ptr<vector<3xi32>, Input>
            %20 = spirv.Load "Input" %__builtin__WorkgroupId___addr : vector<3xi32>
            %21 = spirv.CompositeExtract %20[0 : i32] : vector<3xi32>
            %22 = spirv.IMul %1, %cst512_i32 {no_signed_wrap} : i32
            %23 = spirv.IAdd %22, %4 : i32
            %24 = spirv.IMul %21, %cst1024_i32 {no_signed_wrap} : i32
            %25 = spirv.IAdd %23, %24 : i32
            %cst0_i32_2 = spirv.Constant 0 : i32
            %cst0_i32_3 = spirv.Constant 0 : i32
            %cst1_i32_4 = spirv.Constant 1 : i32
            %26 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_2, %25] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %27 = spirv.Load "StorageBuffer" %26 : vector<4xi32>
            %28 = spirv.IMul %5, %cst32_i32 {no_signed_wrap} : i32
            %29 = spirv.IAdd %28, %4 : i32
            %30 = spirv.IAdd %29, %24 : i32
            %cst0_i32_5 = spirv.Constant 0 : i32
            %cst0_i32_6 = spirv.Constant 0 : i32
            %cst1_i32_7 = spirv.Constant 1 : i32
            %31 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_5, %30] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %32 = spirv.Load "StorageBuffer" %31 : vector<4xi32>
            %33 = spirv.IMul %6, %cst32_i32 {no_signed_wrap} : i32
            %34 = spirv.IAdd %33, %4 : i32
            %35 = spirv.IAdd %34, %24 : i32
            %cst0_i32_8 = spirv.Constant 0 : i32
            %cst0_i32_9 = spirv.Constant 0 : i32
            %cst1_i32_10 = spirv.Constant 1 : i32
            %36 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_8, %35] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %37 = spirv.Load "StorageBuffer" %36 : vector<4xi32>
            %38 = spirv.IMul %7, %cst32_i32 {no_signed_wrap} : i32
            %39 = spirv.IAdd %38, %4 : i32
            %40 = spirv.IAdd %39, %24 : i32
            %cst0_i32_11 = spirv.Constant 0 : i32
            %cst0_i32_12 = spirv.Constant 0 : i32
            %cst1_i32_13 = spirv.Constant 1 : i32
            %41 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_11, %40] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %42 = spirv.Load "StorageBuffer" %41 : vector<4xi32>
            %43 = spirv.IMul %8, %cst32_i32 {no_signed_wrap} : i32
            %44 = spirv.IAdd %43, %4 : i32
            %45 = spirv.IAdd %44, %24 : i32
            %cst0_i32_14 = spirv.Constant 0 : i32
            %cst0_i32_15 = spirv.Constant 0 : i32
            %cst1_i32_16 = spirv.Constant 1 : i32
            %46 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_14, %45] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %47 = spirv.Load "StorageBuffer" %46 : vector<4xi32>
            %48 = spirv.IMul %9, %cst32_i32 {no_signed_wrap} : i32
            %49 = spirv.IAdd %48, %4 : i32
            %50 = spirv.IAdd %49, %24 : i32
            %cst0_i32_17 = spirv.Constant 0 : i32
            %cst0_i32_18 = spirv.Constant 0 : i32
            %cst1_i32_19 = spirv.Constant 1 : i32
            %51 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_17, %50] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %52 = spirv.Load "StorageBuffer" %51 : vector<4xi32>
            %53 = spirv.IMul %10, %cst32_i32 {no_signed_wrap} : i32
            %54 = spirv.IAdd %53, %4 : i32
            %55 = spirv.IAdd %54, %24 : i32
            %cst0_i32_20 = spirv.Constant 0 : i32
            %cst0_i32_21 = spirv.Constant 0 : i32
            %cst1_i32_22 = spirv.Constant 1 : i32
            %56 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_20, %55] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %57 = spirv.Load "StorageBuffer" %56 : vector<4xi32>
            %58 = spirv.IMul %11, %cst32_i32 {no_signed_wrap} : i32
            %59 = spirv.IAdd %58, %4 : i32
            %60 = spirv.IAdd %59, %24 : i32
            %cst0_i32_23 = spirv.Constant 0 : i32
            %cst0_i32_24 = spirv.Constant 0 : i32
            %cst1_i32_25 = spirv.Constant 1 : i32
            %61 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_23, %60] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %62 = spirv.Load "StorageBuffer" %61 : vector<4xi32>
            %63 = spirv.IMul %12, %cst32_i32 {no_signed_wrap} : i32
            %64 = spirv.IAdd %63, %4 : i32
            %65 = spirv.IAdd %64, %24 : i32
            %cst0_i32_26 = spirv.Constant 0 : i32
            %cst0_i32_27 = spirv.Constant 0 : i32
            %cst1_i32_28 = spirv.Constant 1 : i32
            %66 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_26, %65] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %67 = spirv.Load "StorageBuffer" %66 : vector<4xi32>
            %68 = spirv.IMul %13, %cst32_i32 {no_signed_wrap} : i32
            %69 = spirv.IAdd %68, %4 : i32
            %70 = spirv.IAdd %69, %24 : i32
            %cst0_i32_29 = spirv.Constant 0 : i32
            %cst0_i32_30 = spirv.Constant 0 : i32
            %cst1_i32_31 = spirv.Constant 1 : i32
            %71 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_29, %70] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %72 = spirv.Load "StorageBuffer" %71 : vector<4xi32>
            %73 = spirv.IMul %14, %cst32_i32 {no_signed_wrap} : i32
            %74 = spirv.IAdd %73, %4 : i32
            %75 = spirv.IAdd %74, %24 : i32
            %cst0_i32_32 = spirv.Constant 0 : i32
            %cst0_i32_33 = spirv.Constant 0 : i32
            %cst1_i32_34 = spirv.Constant 1 : i32
            %76 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_32, %75] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %77 = spirv.Load "StorageBuffer" %76 : vector<4xi32>
            %78 = spirv.IMul %15, %cst32_i32 {no_signed_wrap} : i32
            %79 = spirv.IAdd %78, %4 : i32
            %80 = spirv.IAdd %79, %24 : i32
            %cst0_i32_35 = spirv.Constant 0 : i32
            %cst0_i32_36 = spirv.Constant 0 : i32
            %cst1_i32_37 = spirv.Constant 1 : i32
            %81 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_35, %80] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %82 = spirv.Load "StorageBuffer" %81 : vector<4xi32>
            %83 = spirv.IMul %16, %cst32_i32 {no_signed_wrap} : i32
            %84 = spirv.IAdd %83, %4 : i32
            %85 = spirv.IAdd %84, %24 : i32
            %cst0_i32_38 = spirv.Constant 0 : i32
            %cst0_i32_39 = spirv.Constant 0 : i32
            %cst1_i32_40 = spirv.Constant 1 : i32
            %86 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_38, %85] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %87 = spirv.Load "StorageBuffer" %86 : vector<4xi32>
            %88 = spirv.IMul %17, %cst32_i32 {no_signed_wrap} : i32
            %89 = spirv.IAdd %88, %4 : i32
            %90 = spirv.IAdd %89, %24 : i32
            %cst0_i32_41 = spirv.Constant 0 : i32
            %cst0_i32_42 = spirv.Constant 0 : i32
            %cst1_i32_43 = spirv.Constant 1 : i32
            %91 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_41, %90] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %92 = spirv.Load "StorageBuffer" %91 : vector<4xi32>
            %93 = spirv.IMul %18, %cst32_i32 {no_signed_wrap} : i32
            %94 = spirv.IAdd %93, %4 : i32
            %95 = spirv.IAdd %94, %24 : i32
            %cst0_i32_44 = spirv.Constant 0 : i32
            %cst0_i32_45 = spirv.Constant 0 : i32
            %cst1_i32_46 = spirv.Constant 1 : i32
            %96 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_44, %95] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %97 = spirv.Load "StorageBuffer" %96 : vector<4xi32>
            %98 = spirv.IMul %19, %cst32_i32 {no_signed_wrap} : i32
            %99 = spirv.IAdd %98, %4 : i32
            %100 = spirv.IAdd %99, %24 : i32
            %cst0_i32_47 = spirv.Constant 0 : i32
            %cst0_i32_48 = spirv.Constant 0 : i32
            %cst1_i32_49 = spirv.Constant 1 : i32
            %101 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_47, %100] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            %102 = spirv.Load "StorageBuffer" %101 : vector<4xi32>
            %103 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %104 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %105 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %106 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %107 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %108 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %109 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %110 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %111 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %112 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %113 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %114 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %115 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %116 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %117 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            %118 = spirv.Variable : !spirv.ptr<vector<4xi32>, Function>
            spirv.mlir.loop {
              spirv.Branch ^bb1(%cst0_i32, %27, %32, %37, %42, %47, %52, %57, %62, %67, %72, %77, %82, %87, %92, %97, %102 : i32, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>)
            ^bb1(%166: i32, %167: vector<4xi32>, %168: vector<4xi32>, %169: vector<4xi32>, %170: vector<4xi32>, %171: vector<4xi32>, %172: vector<4xi32>, %173: vector<4xi32>, %174: vector<4xi32>, %175: vector<4xi32>, %176: vector<4xi32>, %177: vector<4xi32>, %178: vector<4xi32>, %179: vector<4xi32>, %180: vector<4xi32>, %181: vector<4xi32>, %182: vector<4xi32>):  // 2 preds: ^bb0, ^bb2
              %183 = spirv.SLessThan %166, %cst64_i32 : i32
              spirv.BranchConditional %183, ^bb2, ^bb3
            ^bb2:  // pred: ^bb1
              %184 = spirv.IMul %1, %cst256_i32 {no_signed_wrap} : i32
              %185 = spirv.IMul %21, %cst512_i32 {no_signed_wrap} : i32
              %186 = spirv.IAdd %184, %185 : i32
              %187 = spirv.UDiv %166, %cst4_i32 : i32
              %188 = spirv.IAdd %186, %187 : i32
              %cst0_i32_98 = spirv.Constant 0 : i32
              %cst0_i32_99 = spirv.Constant 0 : i32
              %cst1_i32_100 = spirv.Constant 1 : i32
              %189 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_98, %188] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %190 = spirv.Load "StorageBuffer" %189 : vector<4xi32>
              %191 = builtin.unrealized_conversion_cast %190 : vector<4xi32> to vector<4xi8>
              %192 = spirv.IAdd %188, %cst16_i32 : i32
              %cst0_i32_101 = spirv.Constant 0 : i32
              %cst0_i32_102 = spirv.Constant 0 : i32
              %cst1_i32_103 = spirv.Constant 1 : i32
              %193 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_101, %192] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %194 = spirv.Load "StorageBuffer" %193 : vector<4xi32>
              %195 = builtin.unrealized_conversion_cast %194 : vector<4xi32> to vector<4xi8>
              %196 = spirv.IAdd %188, %cst32_i32 : i32
              %cst0_i32_104 = spirv.Constant 0 : i32
              %cst0_i32_105 = spirv.Constant 0 : i32
              %cst1_i32_106 = spirv.Constant 1 : i32
              %197 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_104, %196] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %198 = spirv.Load "StorageBuffer" %197 : vector<4xi32>
              %199 = builtin.unrealized_conversion_cast %198 : vector<4xi32> to vector<4xi8>
              %200 = spirv.IAdd %188, %cst48_i32 : i32
              %cst0_i32_107 = spirv.Constant 0 : i32
              %cst0_i32_108 = spirv.Constant 0 : i32
              %cst1_i32_109 = spirv.Constant 1 : i32
              %201 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_107, %200] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %202 = spirv.Load "StorageBuffer" %201 : vector<4xi32>
              %203 = builtin.unrealized_conversion_cast %202 : vector<4xi32> to vector<4xi8>
              %204 = spirv.IAdd %188, %cst64_i32 : i32
              %cst0_i32_110 = spirv.Constant 0 : i32
              %cst0_i32_111 = spirv.Constant 0 : i32
              %cst1_i32_112 = spirv.Constant 1 : i32
              %205 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_110, %204] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %206 = spirv.Load "StorageBuffer" %205 : vector<4xi32>
              %207 = builtin.unrealized_conversion_cast %206 : vector<4xi32> to vector<4xi8>
              %208 = spirv.IAdd %188, %cst80_i32 : i32
              %cst0_i32_113 = spirv.Constant 0 : i32
              %cst0_i32_114 = spirv.Constant 0 : i32
              %cst1_i32_115 = spirv.Constant 1 : i32
              %209 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_113, %208] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %210 = spirv.Load "StorageBuffer" %209 : vector<4xi32>
              %211 = builtin.unrealized_conversion_cast %210 : vector<4xi32> to vector<4xi8>
              %212 = spirv.IAdd %188, %cst96_i32 : i32
              %cst0_i32_116 = spirv.Constant 0 : i32
              %cst0_i32_117 = spirv.Constant 0 : i32
              %cst1_i32_118 = spirv.Constant 1 : i32
              %213 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_116, %212] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %214 = spirv.Load "StorageBuffer" %213 : vector<4xi32>
              %215 = builtin.unrealized_conversion_cast %214 : vector<4xi32> to vector<4xi8>
              %216 = spirv.IAdd %188, %cst112_i32 : i32
              %cst0_i32_119 = spirv.Constant 0 : i32
              %cst0_i32_120 = spirv.Constant 0 : i32
              %cst1_i32_121 = spirv.Constant 1 : i32
              %217 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_119, %216] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %218 = spirv.Load "StorageBuffer" %217 : vector<4xi32>
              %219 = builtin.unrealized_conversion_cast %218 : vector<4xi32> to vector<4xi8>
              %220 = spirv.IAdd %188, %cst128_i32 : i32
              %cst0_i32_122 = spirv.Constant 0 : i32
              %cst0_i32_123 = spirv.Constant 0 : i32
              %cst1_i32_124 = spirv.Constant 1 : i32
              %221 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_122, %220] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %222 = spirv.Load "StorageBuffer" %221 : vector<4xi32>
              %223 = builtin.unrealized_conversion_cast %222 : vector<4xi32> to vector<4xi8>
              %224 = spirv.IAdd %188, %cst144_i32 : i32
              %cst0_i32_125 = spirv.Constant 0 : i32
              %cst0_i32_126 = spirv.Constant 0 : i32
              %cst1_i32_127 = spirv.Constant 1 : i32
              %225 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_125, %224] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %226 = spirv.Load "StorageBuffer" %225 : vector<4xi32>
              %227 = builtin.unrealized_conversion_cast %226 : vector<4xi32> to vector<4xi8>
              %228 = spirv.IAdd %188, %cst160_i32 : i32
              %cst0_i32_128 = spirv.Constant 0 : i32
              %cst0_i32_129 = spirv.Constant 0 : i32
              %cst1_i32_130 = spirv.Constant 1 : i32
              %229 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_128, %228] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %230 = spirv.Load "StorageBuffer" %229 : vector<4xi32>
              %231 = builtin.unrealized_conversion_cast %230 : vector<4xi32> to vector<4xi8>
              %232 = spirv.IAdd %188, %cst176_i32 : i32
              %cst0_i32_131 = spirv.Constant 0 : i32
              %cst0_i32_132 = spirv.Constant 0 : i32
              %cst1_i32_133 = spirv.Constant 1 : i32
              %233 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_131, %232] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %234 = spirv.Load "StorageBuffer" %233 : vector<4xi32>
              %235 = builtin.unrealized_conversion_cast %234 : vector<4xi32> to vector<4xi8>
              %236 = spirv.IAdd %188, %cst192_i32 : i32
              %cst0_i32_134 = spirv.Constant 0 : i32
              %cst0_i32_135 = spirv.Constant 0 : i32
              %cst1_i32_136 = spirv.Constant 1 : i32
              %237 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_134, %236] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %238 = spirv.Load "StorageBuffer" %237 : vector<4xi32>
              %239 = builtin.unrealized_conversion_cast %238 : vector<4xi32> to vector<4xi8>
              %240 = spirv.IAdd %188, %cst208_i32 : i32
              %cst0_i32_137 = spirv.Constant 0 : i32
              %cst0_i32_138 = spirv.Constant 0 : i32
              %cst1_i32_139 = spirv.Constant 1 : i32
              %241 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_137, %240] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %242 = spirv.Load "StorageBuffer" %241 : vector<4xi32>
              %243 = builtin.unrealized_conversion_cast %242 : vector<4xi32> to vector<4xi8>
              %244 = spirv.IAdd %188, %cst224_i32 : i32
              %cst0_i32_140 = spirv.Constant 0 : i32
              %cst0_i32_141 = spirv.Constant 0 : i32
              %cst1_i32_142 = spirv.Constant 1 : i32
              %245 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_140, %244] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %246 = spirv.Load "StorageBuffer" %245 : vector<4xi32>
              %247 = builtin.unrealized_conversion_cast %246 : vector<4xi32> to vector<4xi8>
              %248 = spirv.IAdd %188, %cst240_i32 : i32
              %cst0_i32_143 = spirv.Constant 0 : i32
              %cst0_i32_144 = spirv.Constant 0 : i32
              %cst1_i32_145 = spirv.Constant 1 : i32
              %249 = spirv.AccessChain %__resource_var_0_0__addr[%cst0_i32_143, %248] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %250 = spirv.Load "StorageBuffer" %249 : vector<4xi32>
              %251 = builtin.unrealized_conversion_cast %250 : vector<4xi32> to vector<4xi8>
              %252 = spirv.IMul %166, %cst32_i32 {no_signed_wrap} : i32
              %253 = spirv.IAdd %252, %4 : i32
              %cst0_i32_146 = spirv.Constant 0 : i32
              %cst0_i32_147 = spirv.Constant 0 : i32
              %cst1_i32_148 = spirv.Constant 1 : i32
              %254 = spirv.AccessChain %__resource_var_0_1__addr[%cst0_i32_146, %253] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %255 = spirv.Load "StorageBuffer" %254 : vector<4xi32>
              %256 = builtin.unrealized_conversion_cast %255 : vector<4xi32> to vector<4xi8>
              %257 = spirv.IAdd %253, %cst32_i32 : i32
              %cst0_i32_149 = spirv.Constant 0 : i32
              %cst0_i32_150 = spirv.Constant 0 : i32
              %cst1_i32_151 = spirv.Constant 1 : i32
              %258 = spirv.AccessChain %__resource_var_0_1__addr[%cst0_i32_149, %257] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %259 = spirv.Load "StorageBuffer" %258 : vector<4xi32>
              %260 = builtin.unrealized_conversion_cast %259 : vector<4xi32> to vector<4xi8>
              %261 = spirv.IAdd %253, %cst64_i32 : i32
              %cst0_i32_152 = spirv.Constant 0 : i32
              %cst0_i32_153 = spirv.Constant 0 : i32
              %cst1_i32_154 = spirv.Constant 1 : i32
              %262 = spirv.AccessChain %__resource_var_0_1__addr[%cst0_i32_152, %261] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %263 = spirv.Load "StorageBuffer" %262 : vector<4xi32>
              %264 = builtin.unrealized_conversion_cast %263 : vector<4xi32> to vector<4xi8>
              %265 = spirv.IAdd %253, %cst96_i32 : i32
              %cst0_i32_155 = spirv.Constant 0 : i32
              %cst0_i32_156 = spirv.Constant 0 : i32
              %cst1_i32_157 = spirv.Constant 1 : i32
              %266 = spirv.AccessChain %__resource_var_0_1__addr[%cst0_i32_155, %265] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
              %267 = spirv.Load "StorageBuffer" %266 : vector<4xi32>
              %268 = builtin.unrealized_conversion_cast %267 : vector<4xi32> to vector<4xi8>
              %269 = spirv.CompositeExtract %256[0 : i32] : vector<4xi8>
              %270 = spirv.CompositeExtract %260[0 : i32] : vector<4xi8>
              %271 = spirv.CompositeExtract %264[0 : i32] : vector<4xi8>
              %272 = spirv.CompositeExtract %268[0 : i32] : vector<4xi8>
              %273 = spirv.CompositeConstruct %269, %270, %271, %272 : (i8, i8, i8, i8) -> vector<4xi8>
              %274 = spirv.CompositeExtract %256[1 : i32] : vector<4xi8>
              %275 = spirv.CompositeExtract %260[1 : i32] : vector<4xi8>
              %276 = spirv.CompositeExtract %264[1 : i32] : vector<4xi8>
              %277 = spirv.CompositeExtract %268[1 : i32] : vector<4xi8>
              %278 = spirv.CompositeConstruct %274, %275, %276, %277 : (i8, i8, i8, i8) -> vector<4xi8>
              %279 = spirv.CompositeExtract %256[2 : i32] : vector<4xi8>
              %280 = spirv.CompositeExtract %260[2 : i32] : vector<4xi8>
              %281 = spirv.CompositeExtract %264[2 : i32] : vector<4xi8>
              %282 = spirv.CompositeExtract %268[2 : i32] : vector<4xi8>
              %283 = spirv.CompositeConstruct %279, %280, %281, %282 : (i8, i8, i8, i8) -> vector<4xi8>
              %284 = spirv.CompositeExtract %256[3 : i32] : vector<4xi8>
              %285 = spirv.CompositeExtract %260[3 : i32] : vector<4xi8>
              %286 = spirv.CompositeExtract %264[3 : i32] : vector<4xi8>
              %287 = spirv.CompositeExtract %268[3 : i32] : vector<4xi8>
              %288 = spirv.CompositeConstruct %284, %285, %286, %287 : (i8, i8, i8, i8) -> vector<4xi8>
              %289 = spirv.CompositeExtract %167[0 : i32] : vector<4xi32>
              %290 = spirv.SDotAccSat %191, %273, %289 : vector<4xi8> -> i32
              %291 = spirv.CompositeExtract %167[1 : i32] : vector<4xi32>
              %292 = spirv.SDotAccSat %191, %278, %291 : vector<4xi8> -> i32
              %293 = spirv.CompositeExtract %167[2 : i32] : vector<4xi32>
              %294 = spirv.SDotAccSat %191, %283, %293 : vector<4xi8> -> i32
              %295 = spirv.CompositeExtract %167[3 : i32] : vector<4xi32>
              %296 = spirv.SDotAccSat %191, %288, %295 : vector<4xi8> -> i32
              %297 = spirv.CompositeExtract %168[0 : i32] : vector<4xi32>
              %298 = spirv.SDotAccSat %195, %273, %297 : vector<4xi8> -> i32
              %299 = spirv.CompositeExtract %168[1 : i32] : vector<4xi32>
              %300 = spirv.SDotAccSat %195, %278, %299 : vector<4xi8> -> i32
              %301 = spirv.CompositeExtract %168[2 : i32] : vector<4xi32>
              %302 = spirv.SDotAccSat %195, %283, %301 : vector<4xi8> -> i32
              %303 = spirv.CompositeExtract %168[3 : i32] : vector<4xi32>
              %304 = spirv.SDotAccSat %195, %288, %303 : vector<4xi8> -> i32
              %305 = spirv.CompositeExtract %169[0 : i32] : vector<4xi32>
              %306 = spirv.SDotAccSat %199, %273, %305 : vector<4xi8> -> i32
              %307 = spirv.CompositeExtract %169[1 : i32] : vector<4xi32>
              %308 = spirv.SDotAccSat %199, %278, %307 : vector<4xi8> -> i32
              %309 = spirv.CompositeExtract %169[2 : i32] : vector<4xi32>
              %310 = spirv.SDotAccSat %199, %283, %309 : vector<4xi8> -> i32
              %311 = spirv.CompositeExtract %169[3 : i32] : vector<4xi32>
              %312 = spirv.SDotAccSat %199, %288, %311 : vector<4xi8> -> i32
              %313 = spirv.CompositeExtract %170[0 : i32] : vector<4xi32>
              %314 = spirv.SDotAccSat %203, %273, %313 : vector<4xi8> -> i32
              %315 = spirv.CompositeExtract %170[1 : i32] : vector<4xi32>
              %316 = spirv.SDotAccSat %203, %278, %315 : vector<4xi8> -> i32
              %317 = spirv.CompositeExtract %170[2 : i32] : vector<4xi32>
              %318 = spirv.SDotAccSat %203, %283, %317 : vector<4xi8> -> i32
              %319 = spirv.CompositeExtract %170[3 : i32] : vector<4xi32>
              %320 = spirv.SDotAccSat %203, %288, %319 : vector<4xi8> -> i32
              %321 = spirv.CompositeExtract %171[0 : i32] : vector<4xi32>
              %322 = spirv.SDotAccSat %207, %273, %321 : vector<4xi8> -> i32
              %323 = spirv.CompositeExtract %171[1 : i32] : vector<4xi32>
              %324 = spirv.SDotAccSat %207, %278, %323 : vector<4xi8> -> i32
              %325 = spirv.CompositeExtract %171[2 : i32] : vector<4xi32>
              %326 = spirv.SDotAccSat %207, %283, %325 : vector<4xi8> -> i32
              %327 = spirv.CompositeExtract %171[3 : i32] : vector<4xi32>
              %328 = spirv.SDotAccSat %207, %288, %327 : vector<4xi8> -> i32
              %329 = spirv.CompositeExtract %172[0 : i32] : vector<4xi32>
              %330 = spirv.SDotAccSat %211, %273, %329 : vector<4xi8> -> i32
              %331 = spirv.CompositeExtract %172[1 : i32] : vector<4xi32>
              %332 = spirv.SDotAccSat %211, %278, %331 : vector<4xi8> -> i32
              %333 = spirv.CompositeExtract %172[2 : i32] : vector<4xi32>
              %334 = spirv.SDotAccSat %211, %283, %333 : vector<4xi8> -> i32
              %335 = spirv.CompositeExtract %172[3 : i32] : vector<4xi32>
              %336 = spirv.SDotAccSat %211, %288, %335 : vector<4xi8> -> i32
              %337 = spirv.CompositeExtract %173[0 : i32] : vector<4xi32>
              %338 = spirv.SDotAccSat %215, %273, %337 : vector<4xi8> -> i32
              %339 = spirv.CompositeExtract %173[1 : i32] : vector<4xi32>
              %340 = spirv.SDotAccSat %215, %278, %339 : vector<4xi8> -> i32
              %341 = spirv.CompositeExtract %173[2 : i32] : vector<4xi32>
              %342 = spirv.SDotAccSat %215, %283, %341 : vector<4xi8> -> i32
              %343 = spirv.CompositeExtract %173[3 : i32] : vector<4xi32>
              %344 = spirv.SDotAccSat %215, %288, %343 : vector<4xi8> -> i32
              %345 = spirv.CompositeExtract %174[0 : i32] : vector<4xi32>
              %346 = spirv.SDotAccSat %219, %273, %345 : vector<4xi8> -> i32
              %347 = spirv.CompositeExtract %174[1 : i32] : vector<4xi32>
              %348 = spirv.SDotAccSat %219, %278, %347 : vector<4xi8> -> i32
              %349 = spirv.CompositeExtract %174[2 : i32] : vector<4xi32>
              %350 = spirv.SDotAccSat %219, %283, %349 : vector<4xi8> -> i32
              %351 = spirv.CompositeExtract %174[3 : i32] : vector<4xi32>
              %352 = spirv.SDotAccSat %219, %288, %351 : vector<4xi8> -> i32
              %353 = spirv.CompositeExtract %175[0 : i32] : vector<4xi32>
              %354 = spirv.SDotAccSat %223, %273, %353 : vector<4xi8> -> i32
              %355 = spirv.CompositeExtract %175[1 : i32] : vector<4xi32>
              %356 = spirv.SDotAccSat %223, %278, %355 : vector<4xi8> -> i32
              %357 = spirv.CompositeExtract %175[2 : i32] : vector<4xi32>
              %358 = spirv.SDotAccSat %223, %283, %357 : vector<4xi8> -> i32
              %359 = spirv.CompositeExtract %175[3 : i32] : vector<4xi32>
              %360 = spirv.SDotAccSat %223, %288, %359 : vector<4xi8> -> i32
              %361 = spirv.CompositeExtract %176[0 : i32] : vector<4xi32>
              %362 = spirv.SDotAccSat %227, %273, %361 : vector<4xi8> -> i32
              %363 = spirv.CompositeExtract %176[1 : i32] : vector<4xi32>
              %364 = spirv.SDotAccSat %227, %278, %363 : vector<4xi8> -> i32
              %365 = spirv.CompositeExtract %176[2 : i32] : vector<4xi32>
              %366 = spirv.SDotAccSat %227, %283, %365 : vector<4xi8> -> i32
              %367 = spirv.CompositeExtract %176[3 : i32] : vector<4xi32>
              %368 = spirv.SDotAccSat %227, %288, %367 : vector<4xi8> -> i32
              %369 = spirv.CompositeExtract %177[0 : i32] : vector<4xi32>
              %370 = spirv.SDotAccSat %231, %273, %369 : vector<4xi8> -> i32
              %371 = spirv.CompositeExtract %177[1 : i32] : vector<4xi32>
              %372 = spirv.SDotAccSat %231, %278, %371 : vector<4xi8> -> i32
              %373 = spirv.CompositeExtract %177[2 : i32] : vector<4xi32>
              %374 = spirv.SDotAccSat %231, %283, %373 : vector<4xi8> -> i32
              %375 = spirv.CompositeExtract %177[3 : i32] : vector<4xi32>
              %376 = spirv.SDotAccSat %231, %288, %375 : vector<4xi8> -> i32
              %377 = spirv.CompositeExtract %178[0 : i32] : vector<4xi32>
              %378 = spirv.SDotAccSat %235, %273, %377 : vector<4xi8> -> i32
              %379 = spirv.CompositeExtract %178[1 : i32] : vector<4xi32>
              %380 = spirv.SDotAccSat %235, %278, %379 : vector<4xi8> -> i32
              %381 = spirv.CompositeExtract %178[2 : i32] : vector<4xi32>
              %382 = spirv.SDotAccSat %235, %283, %381 : vector<4xi8> -> i32
              %383 = spirv.CompositeExtract %178[3 : i32] : vector<4xi32>
              %384 = spirv.SDotAccSat %235, %288, %383 : vector<4xi8> -> i32
              %385 = spirv.CompositeExtract %179[0 : i32] : vector<4xi32>
              %386 = spirv.SDotAccSat %239, %273, %385 : vector<4xi8> -> i32
              %387 = spirv.CompositeExtract %179[1 : i32] : vector<4xi32>
              %388 = spirv.SDotAccSat %239, %278, %387 : vector<4xi8> -> i32
              %389 = spirv.CompositeExtract %179[2 : i32] : vector<4xi32>
              %390 = spirv.SDotAccSat %239, %283, %389 : vector<4xi8> -> i32
              %391 = spirv.CompositeExtract %179[3 : i32] : vector<4xi32>
              %392 = spirv.SDotAccSat %239, %288, %391 : vector<4xi8> -> i32
              %393 = spirv.CompositeExtract %180[0 : i32] : vector<4xi32>
              %394 = spirv.SDotAccSat %243, %273, %393 : vector<4xi8> -> i32
              %395 = spirv.CompositeExtract %180[1 : i32] : vector<4xi32>
              %396 = spirv.SDotAccSat %243, %278, %395 : vector<4xi8> -> i32
              %397 = spirv.CompositeExtract %180[2 : i32] : vector<4xi32>
              %398 = spirv.SDotAccSat %243, %283, %397 : vector<4xi8> -> i32
              %399 = spirv.CompositeExtract %180[3 : i32] : vector<4xi32>
              %400 = spirv.SDotAccSat %243, %288, %399 : vector<4xi8> -> i32
              %401 = spirv.CompositeExtract %181[0 : i32] : vector<4xi32>
              %402 = spirv.SDotAccSat %247, %273, %401 : vector<4xi8> -> i32
              %403 = spirv.CompositeExtract %181[1 : i32] : vector<4xi32>
              %404 = spirv.SDotAccSat %247, %278, %403 : vector<4xi8> -> i32
              %405 = spirv.CompositeExtract %181[2 : i32] : vector<4xi32>
              %406 = spirv.SDotAccSat %247, %283, %405 : vector<4xi8> -> i32
              %407 = spirv.CompositeExtract %181[3 : i32] : vector<4xi32>
              %408 = spirv.SDotAccSat %247, %288, %407 : vector<4xi8> -> i32
              %409 = spirv.CompositeExtract %182[0 : i32] : vector<4xi32>
              %410 = spirv.SDotAccSat %251, %273, %409 : vector<4xi8> -> i32
              %411 = spirv.CompositeExtract %182[1 : i32] : vector<4xi32>
              %412 = spirv.SDotAccSat %251, %278, %411 : vector<4xi8> -> i32
              %413 = spirv.CompositeExtract %182[2 : i32] : vector<4xi32>
              %414 = spirv.SDotAccSat %251, %283, %413 : vector<4xi8> -> i32
              %415 = spirv.CompositeExtract %182[3 : i32] : vector<4xi32>
              %416 = spirv.SDotAccSat %251, %288, %415 : vector<4xi8> -> i32
              %417 = spirv.CompositeInsert %290, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %418 = spirv.CompositeInsert %292, %417[1 : i32] : i32 into vector<4xi32>
              %419 = spirv.CompositeInsert %294, %418[2 : i32] : i32 into vector<4xi32>
              %420 = spirv.CompositeInsert %296, %419[3 : i32] : i32 into vector<4xi32>
              %421 = spirv.CompositeInsert %298, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %422 = spirv.CompositeInsert %300, %421[1 : i32] : i32 into vector<4xi32>
              %423 = spirv.CompositeInsert %302, %422[2 : i32] : i32 into vector<4xi32>
              %424 = spirv.CompositeInsert %304, %423[3 : i32] : i32 into vector<4xi32>
              %425 = spirv.CompositeInsert %306, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %426 = spirv.CompositeInsert %308, %425[1 : i32] : i32 into vector<4xi32>
              %427 = spirv.CompositeInsert %310, %426[2 : i32] : i32 into vector<4xi32>
              %428 = spirv.CompositeInsert %312, %427[3 : i32] : i32 into vector<4xi32>
              %429 = spirv.CompositeInsert %314, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %430 = spirv.CompositeInsert %316, %429[1 : i32] : i32 into vector<4xi32>
              %431 = spirv.CompositeInsert %318, %430[2 : i32] : i32 into vector<4xi32>
              %432 = spirv.CompositeInsert %320, %431[3 : i32] : i32 into vector<4xi32>
              %433 = spirv.CompositeInsert %322, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %434 = spirv.CompositeInsert %324, %433[1 : i32] : i32 into vector<4xi32>
              %435 = spirv.CompositeInsert %326, %434[2 : i32] : i32 into vector<4xi32>
              %436 = spirv.CompositeInsert %328, %435[3 : i32] : i32 into vector<4xi32>
              %437 = spirv.CompositeInsert %330, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %438 = spirv.CompositeInsert %332, %437[1 : i32] : i32 into vector<4xi32>
              %439 = spirv.CompositeInsert %334, %438[2 : i32] : i32 into vector<4xi32>
              %440 = spirv.CompositeInsert %336, %439[3 : i32] : i32 into vector<4xi32>
              %441 = spirv.CompositeInsert %338, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %442 = spirv.CompositeInsert %340, %441[1 : i32] : i32 into vector<4xi32>
              %443 = spirv.CompositeInsert %342, %442[2 : i32] : i32 into vector<4xi32>
              %444 = spirv.CompositeInsert %344, %443[3 : i32] : i32 into vector<4xi32>
              %445 = spirv.CompositeInsert %346, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %446 = spirv.CompositeInsert %348, %445[1 : i32] : i32 into vector<4xi32>
              %447 = spirv.CompositeInsert %350, %446[2 : i32] : i32 into vector<4xi32>
              %448 = spirv.CompositeInsert %352, %447[3 : i32] : i32 into vector<4xi32>
              %449 = spirv.CompositeInsert %354, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %450 = spirv.CompositeInsert %356, %449[1 : i32] : i32 into vector<4xi32>
              %451 = spirv.CompositeInsert %358, %450[2 : i32] : i32 into vector<4xi32>
              %452 = spirv.CompositeInsert %360, %451[3 : i32] : i32 into vector<4xi32>
              %453 = spirv.CompositeInsert %362, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %454 = spirv.CompositeInsert %364, %453[1 : i32] : i32 into vector<4xi32>
              %455 = spirv.CompositeInsert %366, %454[2 : i32] : i32 into vector<4xi32>
              %456 = spirv.CompositeInsert %368, %455[3 : i32] : i32 into vector<4xi32>
              %457 = spirv.CompositeInsert %370, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %458 = spirv.CompositeInsert %372, %457[1 : i32] : i32 into vector<4xi32>
              %459 = spirv.CompositeInsert %374, %458[2 : i32] : i32 into vector<4xi32>
              %460 = spirv.CompositeInsert %376, %459[3 : i32] : i32 into vector<4xi32>
              %461 = spirv.CompositeInsert %378, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %462 = spirv.CompositeInsert %380, %461[1 : i32] : i32 into vector<4xi32>
              %463 = spirv.CompositeInsert %382, %462[2 : i32] : i32 into vector<4xi32>
              %464 = spirv.CompositeInsert %384, %463[3 : i32] : i32 into vector<4xi32>
              %465 = spirv.CompositeInsert %386, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %466 = spirv.CompositeInsert %388, %465[1 : i32] : i32 into vector<4xi32>
              %467 = spirv.CompositeInsert %390, %466[2 : i32] : i32 into vector<4xi32>
              %468 = spirv.CompositeInsert %392, %467[3 : i32] : i32 into vector<4xi32>
              %469 = spirv.CompositeInsert %394, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %470 = spirv.CompositeInsert %396, %469[1 : i32] : i32 into vector<4xi32>
              %471 = spirv.CompositeInsert %398, %470[2 : i32] : i32 into vector<4xi32>
              %472 = spirv.CompositeInsert %400, %471[3 : i32] : i32 into vector<4xi32>
              %473 = spirv.CompositeInsert %402, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %474 = spirv.CompositeInsert %404, %473[1 : i32] : i32 into vector<4xi32>
              %475 = spirv.CompositeInsert %406, %474[2 : i32] : i32 into vector<4xi32>
              %476 = spirv.CompositeInsert %408, %475[3 : i32] : i32 into vector<4xi32>
              %477 = spirv.CompositeInsert %410, %cst_vec_4xi32[0 : i32] : i32 into vector<4xi32>
              %478 = spirv.CompositeInsert %412, %477[1 : i32] : i32 into vector<4xi32>
              %479 = spirv.CompositeInsert %414, %478[2 : i32] : i32 into vector<4xi32>
              %480 = spirv.CompositeInsert %416, %479[3 : i32] : i32 into vector<4xi32>
              spirv.Store "Function" %103, %420 : vector<4xi32>
              spirv.Store "Function" %104, %424 : vector<4xi32>
              spirv.Store "Function" %105, %428 : vector<4xi32>
              spirv.Store "Function" %106, %432 : vector<4xi32>
              spirv.Store "Function" %107, %436 : vector<4xi32>
              spirv.Store "Function" %108, %440 : vector<4xi32>
              spirv.Store "Function" %109, %444 : vector<4xi32>
              spirv.Store "Function" %110, %448 : vector<4xi32>
              spirv.Store "Function" %111, %452 : vector<4xi32>
              spirv.Store "Function" %112, %456 : vector<4xi32>
              spirv.Store "Function" %113, %460 : vector<4xi32>
              spirv.Store "Function" %114, %464 : vector<4xi32>
              spirv.Store "Function" %115, %468 : vector<4xi32>
              spirv.Store "Function" %116, %472 : vector<4xi32>
              spirv.Store "Function" %117, %476 : vector<4xi32>
              spirv.Store "Function" %118, %480 : vector<4xi32>
              %481 = spirv.IAdd %166, %cst4_i32 : i32
              spirv.Branch ^bb1(%481, %420, %424, %428, %432, %436, %440, %444, %448, %452, %456, %460, %464, %468, %472, %476, %480 : i32, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>, vector<4xi32>)
            ^bb3:  // pred: ^bb1
              spirv.mlir.merge
            }
            %119 = spirv.Load "Function" %118 : vector<4xi32>
            %120 = spirv.Load "Function" %117 : vector<4xi32>
            %121 = spirv.Load "Function" %116 : vector<4xi32>
            %122 = spirv.Load "Function" %115 : vector<4xi32>
            %123 = spirv.Load "Function" %114 : vector<4xi32>
            %124 = spirv.Load "Function" %113 : vector<4xi32>
            %125 = spirv.Load "Function" %112 : vector<4xi32>
            %126 = spirv.Load "Function" %111 : vector<4xi32>
            %127 = spirv.Load "Function" %110 : vector<4xi32>
            %128 = spirv.Load "Function" %109 : vector<4xi32>
            %129 = spirv.Load "Function" %108 : vector<4xi32>
            %130 = spirv.Load "Function" %107 : vector<4xi32>
            %131 = spirv.Load "Function" %106 : vector<4xi32>
            %132 = spirv.Load "Function" %105 : vector<4xi32>
            %133 = spirv.Load "Function" %104 : vector<4xi32>
            %134 = spirv.Load "Function" %103 : vector<4xi32>
            %135 = spirv.IAdd %25, %cst480_i32 : i32
            %cst0_i32_50 = spirv.Constant 0 : i32
            %cst0_i32_51 = spirv.Constant 0 : i32
            %cst1_i32_52 = spirv.Constant 1 : i32
            %136 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_50, %135] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %136, %119 : vector<4xi32>
            %137 = spirv.IAdd %25, %cst448_i32 : i32
            %cst0_i32_53 = spirv.Constant 0 : i32
            %cst0_i32_54 = spirv.Constant 0 : i32
            %cst1_i32_55 = spirv.Constant 1 : i32
            %138 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_53, %137] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %138, %120 : vector<4xi32>
            %139 = spirv.IAdd %25, %cst416_i32 : i32
            %cst0_i32_56 = spirv.Constant 0 : i32
            %cst0_i32_57 = spirv.Constant 0 : i32
            %cst1_i32_58 = spirv.Constant 1 : i32
            %140 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_56, %139] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %140, %121 : vector<4xi32>
            %141 = spirv.IAdd %25, %cst384_i32 : i32
            %cst0_i32_59 = spirv.Constant 0 : i32
            %cst0_i32_60 = spirv.Constant 0 : i32
            %cst1_i32_61 = spirv.Constant 1 : i32
            %142 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_59, %141] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %142, %122 : vector<4xi32>
            %143 = spirv.IAdd %25, %cst352_i32 : i32
            %cst0_i32_62 = spirv.Constant 0 : i32
            %cst0_i32_63 = spirv.Constant 0 : i32
            %cst1_i32_64 = spirv.Constant 1 : i32
            %144 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_62, %143] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %144, %123 : vector<4xi32>
            %145 = spirv.IAdd %25, %cst320_i32 : i32
            %cst0_i32_65 = spirv.Constant 0 : i32
            %cst0_i32_66 = spirv.Constant 0 : i32
            %cst1_i32_67 = spirv.Constant 1 : i32
            %146 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_65, %145] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %146, %124 : vector<4xi32>
            %147 = spirv.IAdd %25, %cst288_i32 : i32
            %cst0_i32_68 = spirv.Constant 0 : i32
            %cst0_i32_69 = spirv.Constant 0 : i32
            %cst1_i32_70 = spirv.Constant 1 : i32
            %148 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_68, %147] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %148, %125 : vector<4xi32>
            %149 = spirv.IAdd %25, %cst256_i32 : i32
            %cst0_i32_71 = spirv.Constant 0 : i32
            %cst0_i32_72 = spirv.Constant 0 : i32
            %cst1_i32_73 = spirv.Constant 1 : i32
            %150 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_71, %149] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %150, %126 : vector<4xi32>
            %151 = spirv.IAdd %25, %cst224_i32 : i32
            %cst0_i32_74 = spirv.Constant 0 : i32
            %cst0_i32_75 = spirv.Constant 0 : i32
            %cst1_i32_76 = spirv.Constant 1 : i32
            %152 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_74, %151] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %152, %127 : vector<4xi32>
            %153 = spirv.IAdd %25, %cst192_i32 : i32
            %cst0_i32_77 = spirv.Constant 0 : i32
            %cst0_i32_78 = spirv.Constant 0 : i32
            %cst1_i32_79 = spirv.Constant 1 : i32
            %154 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_77, %153] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %154, %128 : vector<4xi32>
            %155 = spirv.IAdd %25, %cst160_i32 : i32
            %cst0_i32_80 = spirv.Constant 0 : i32
            %cst0_i32_81 = spirv.Constant 0 : i32
            %cst1_i32_82 = spirv.Constant 1 : i32
            %156 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_80, %155] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %156, %129 : vector<4xi32>
            %157 = spirv.IAdd %25, %cst128_i32 : i32
            %cst0_i32_83 = spirv.Constant 0 : i32
            %cst0_i32_84 = spirv.Constant 0 : i32
            %cst1_i32_85 = spirv.Constant 1 : i32
            %158 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_83, %157] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %158, %130 : vector<4xi32>
            %159 = spirv.IAdd %25, %cst96_i32 : i32
            %cst0_i32_86 = spirv.Constant 0 : i32
            %cst0_i32_87 = spirv.Constant 0 : i32
            %cst1_i32_88 = spirv.Constant 1 : i32
            %160 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_86, %159] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %160, %131 : vector<4xi32>
            %161 = spirv.IAdd %25, %cst64_i32 : i32
            %cst0_i32_89 = spirv.Constant 0 : i32
            %cst0_i32_90 = spirv.Constant 0 : i32
            %cst1_i32_91 = spirv.Constant 1 : i32
            %162 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_89, %161] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %162, %132 : vector<4xi32>
            %163 = spirv.IAdd %25, %cst32_i32 : i32
            %cst0_i32_92 = spirv.Constant 0 : i32
            %cst0_i32_93 = spirv.Constant 0 : i32
            %cst1_i32_94 = spirv.Constant 1 : i32
            %164 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_92, %163] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %164, %133 : vector<4xi32>
            %cst0_i32_95 = spirv.Constant 0 : i32
            %cst0_i32_96 = spirv.Constant 0 : i32
            %cst1_i32_97 = spirv.Constant 1 : i32
            %165 = spirv.AccessChain %__resource_var_0_2__addr[%cst0_i32_95, %25] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<vector<4xi32>, stride=16> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<vector<4xi32>, StorageBuffer>
            spirv.Store "StorageBuffer" %165, %134 : vector<4xi32>
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
  util.func public @conv_block(%arg0: !hal.buffer_view, %arg1: i32, %arg2: i32, %arg3: index, %arg4: index, %arg5: index) {
    hal.buffer_view.assert<%arg0 : !hal.buffer_view> message("input0") shape([%arg3, %arg4, %arg4, %arg5]) type(%arg2) encoding(%arg1)
    util.return
  }
}

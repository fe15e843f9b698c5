// RUN: iree-opt '--pass-pipeline=builtin.module(hal.executable(hal.executable.variant(builtin.module(iree-vm-conversion{f32-extension=true f64-extension=true index-bits=64 optimize-for-stack-size=false truncate-unsupported-floats=true}))))' --verify-diagnostics %s

#executable_target_vmvx_bytecode_fb = #hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver = #iree_cpu.vmvx_encoding_resolver<>, ukernels = "none"}>
#pipeline_layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  hal.executable private @main$async_dispatch_0 {
    hal.executable.variant public @vmvx_bytecode_fb target(#executable_target_vmvx_bytecode_fb) {
      hal.executable.export public @main$async_dispatch_0_elementwise ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device) -> (index, index, index) {
        %c1 = arith.constant 1 : index
        hal.return %c1, %c1, %c1 : index, index, index
      } <workgroup_size = [1 : index, 1 : index, 1 : index]>
      builtin.module {
        func.func @main$async_dispatch_0_elementwise(%arg0: bf16, %arg1: bf16) -> bf16 {
          // expected-error @+1 {{'vm.add.f32' op operand #0 must be 32-bit float, but got 'i32'}}
          %0 = arith.addf %arg0, %arg1 : bf16
          return %0 : bf16
        }
      }
    }
  }
}

// RUN: iree-opt '--pass-pipeline=builtin.module(hal.executable(hal.executable.variant(builtin.module(iree-vm-conversion{f32-extension=true f64-extension=true index-bits=64 optimize-for-stack-size=false truncate-unsupported-floats=true}))))' --verify-diagnostics %s

#executable_target_vmvx_bytecode_fb = #hal.executable.target<"vmvx", "vmvx-bytecode-fb", {iree.encoding.resolver = #iree_cpu.vmvx_encoding_resolver<>, ukernels = "none"}>
#pipeline_layout = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">, #hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer, Indirect>], flags = Indirect>
module attributes {stream.affinity.default = #hal.device.affinity<@__device_0>} {
  util.global private @__hoisted_tensor_i8 : !stream.resource<constant>
  util.initializer {
    %c0 = arith.constant 0 : index
    %c-128_i8 = arith.constant -128 : i8
    %c1 = arith.constant 1 : index
    %result, %result_timepoint = stream.resource.alloca uninitialized on(#hal.device.affinity<@__device_0>) : !stream.resource<constant>{%c1} => !stream.timepoint
    %0 = stream.cmd.execute once on(#hal.device.affinity<@__device_0>) await(%result_timepoint) => with(%result as %arg0: !stream.resource<constant>{%c1}) {
      stream.cmd.fill %c-128_i8, %arg0[%c0 for %c1] : i8 -> !stream.resource<constant>{%c1}
    } => !stream.timepoint
    %1 = stream.timepoint.await sync %0 => %result : !stream.resource<constant>{%c1}
    util.global.store %1, @__hoisted_tensor_i8 : !stream.resource<constant>
    util.return
  }
  hal.executable private @main$async_dispatch_0 {
    hal.executable.variant public @vmvx_bytecode_fb target(#executable_target_vmvx_bytecode_fb) {
      hal.executable.export public @main$async_dispatch_0_generic ordinal(0) layout(#pipeline_layout) count(%arg0: !hal.device) -> (index, index, index) {
        %c1 = arith.constant 1 : index
        hal.return %c1, %c1, %c1 : index, index, index
      } <workgroup_size = [1 : index, 1 : index, 1 : index]>
      // expected-error @+1 {{conversion to vm.module failed}}
      builtin.module {
        func.func @main$async_dispatch_0_generic(%arg0: f32) -> i8 {
          // expected-error @+1 {{failed to legalize operation 'arith.fptoui' that was explicitly marked illegal}}
          %0 = arith.fptoui %arg0 : f32 to i8
          return %0 : i8
        }
      }
    }
  }
}

// RUN: iree-opt '--pass-pipeline=builtin.module(func.func(convert-torch-onnx-to-torch{allow-non-finites=true}))' %s
// XFAIL: *
// crashes in this IREE: crash: SIGSEGV: mlir::torch::Torch::AtenPadOp::create <- mlir::torch::onnx_c::OnnxCustomOpConversionPattern::matchAndRewrite <- llvm::LogicalResult mlir::ConversionPattern::dispatchTo1To1<mlir::OpConversionPattern<mlir::torch::Torch::OperatorOp>, mlir::torch::Torch::OperatorOp>

module {
  func.func @main(%arg0: !torch.vtensor<[1,1,1],si8>, %arg1: !torch.vtensor<[],si8>, %arg2: !torch.vtensor<[],f32>, %arg3: !torch.vtensor<[],f32>, %arg4: !torch.vtensor<[],si8>, %arg5: !torch.vtensor<[1,1,1],si8>, %arg6: !torch.vtensor<[],si8>, %arg7: !torch.vtensor<[],f32>) -> !torch.vtensor<[1,1,2],si8> attributes {torch.onnx_meta.opset_version = 21 : si64} {
    %0 = torch.operator "onnx.QLinearConv"(%arg0, %arg7, %arg6, %arg5, %arg3, %arg4, %arg2, %arg1) {torch.onnx.pads = [1 : si64, 0 : si64]} : (!torch.vtensor<[1,1,1],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[1,1,1],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>, !torch.vtensor<[],f32>, !torch.vtensor<[],si8>) -> !torch.vtensor<[1,1,2],si8> 
    return %0 : !torch.vtensor<[1,1,2],si8>
  }
}

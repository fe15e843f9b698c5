module {
  func.func @forward(%arg0: !torch.vtensor<[1,8,1024,64],f16>, %arg1: !torch.vtensor<[1,8,1024,64],f16>, %arg2: !torch.vtensor<[1,8,1024,64],f16>) -> !torch.vtensor<[1,8,1024,64],f16> {
    %none = torch.constant.none
    %false = torch.constant.bool false
    %float0.000000e00 = torch.constant.float 0.000000e+00
    %0 = torch.aten.scaled_dot_product_attention %arg0, %arg1, %arg2, %none, %float0.000000e00, %false, %none, %false : !torch.vtensor<[1,8,1024,64],f16>, !torch.vtensor<[1,8,1024,64],f16>, !torch.vtensor<[1,8,1024,64],f16>, !torch.none, !torch.float, !torch.bool, !torch.none, !torch.bool -> !torch.vtensor<[1,8,1024,64],f16>
    return %0 : !torch.vtensor<[1,8,1024,64],f16>
  }
}

// The attention core of a decoder layer as torch's FX importer emits it (f16, 8 heads of 64):
// the fused QKV projection's output split into heads, scaled_dot_product_attention, the heads
// merged back and a residual add.
func.func @forward(%qkv: !torch.vtensor<[1,1024,1536],f16>, %residual: !torch.vtensor<[1,1024,512],f16>) -> !torch.vtensor<[1,1024,512],f16> {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %p0 = torch.constant.float 0.000000e+00
  %int0 = torch.constant.int 0
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int8 = torch.constant.int 8
  %int64 = torch.constant.int 64
  %int512 = torch.constant.int 512
  %int1024 = torch.constant.int 1024
  %int1536 = torch.constant.int 1536
  %int_neg1 = torch.constant.int -1
  %q = torch.aten.slice.Tensor %qkv, %int_neg1, %int0, %int512, %int1 : !torch.vtensor<[1,1024,1536],f16>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,1024,512],f16>
  %k = torch.aten.slice.Tensor %qkv, %int_neg1, %int512, %int1024, %int1 : !torch.vtensor<[1,1024,1536],f16>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,1024,512],f16>
  %v = torch.aten.slice.Tensor %qkv, %int_neg1, %int1024, %int1536, %int1 : !torch.vtensor<[1,1024,1536],f16>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,1024,512],f16>
  %shape = torch.prim.ListConstruct %int1, %int1024, %int8, %int64 : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %q4 = torch.aten.view %q, %shape : !torch.vtensor<[1,1024,512],f16>, !torch.list<int> -> !torch.vtensor<[1,1024,8,64],f16>
  %k4 = torch.aten.view %k, %shape : !torch.vtensor<[1,1024,512],f16>, !torch.list<int> -> !torch.vtensor<[1,1024,8,64],f16>
  %v4 = torch.aten.view %v, %shape : !torch.vtensor<[1,1024,512],f16>, !torch.list<int> -> !torch.vtensor<[1,1024,8,64],f16>
  %qh = torch.aten.transpose.int %q4, %int1, %int2 : !torch.vtensor<[1,1024,8,64],f16>, !torch.int, !torch.int -> !torch.vtensor<[1,8,1024,64],f16>
  %kh = torch.aten.transpose.int %k4, %int1, %int2 : !torch.vtensor<[1,1024,8,64],f16>, !torch.int, !torch.int -> !torch.vtensor<[1,8,1024,64],f16>
  %vh = torch.aten.transpose.int %v4, %int1, %int2 : !torch.vtensor<[1,1024,8,64],f16>, !torch.int, !torch.int -> !torch.vtensor<[1,8,1024,64],f16>
  %a = torch.aten.scaled_dot_product_attention %qh, %kh, %vh, %none, %p0, %false, %none, %false : !torch.vtensor<[1,8,1024,64],f16>, !torch.vtensor<[1,8,1024,64],f16>, !torch.vtensor<[1,8,1024,64],f16>, !torch.none, !torch.float, !torch.bool, !torch.none, !torch.bool -> !torch.vtensor<[1,8,1024,64],f16>
  %at = torch.aten.transpose.int %a, %int1, %int2 : !torch.vtensor<[1,8,1024,64],f16>, !torch.int, !torch.int -> !torch.vtensor<[1,1024,8,64],f16>
  %shape3 = torch.prim.ListConstruct %int1, %int1024, %int512 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %merged = torch.aten.view %at, %shape3 : !torch.vtensor<[1,1024,8,64],f16>, !torch.list<int> -> !torch.vtensor<[1,1024,512],f16>
  %y = torch.aten.add.Tensor %merged, %residual, %int1 : !torch.vtensor<[1,1024,512],f16>, !torch.vtensor<[1,1024,512],f16>, !torch.int -> !torch.vtensor<[1,1024,512],f16>
  return %y : !torch.vtensor<[1,1024,512],f16>
}

// A self-attention block as torch's FX importer emits it: QKV projections, heads split,
// scaled_dot_product_attention, heads merged, output projection and a residual add.
func.func @forward(%x: !torch.vtensor<[1,128,256],f16>, %wq: !torch.vtensor<[256,256],f16>, %wk: !torch.vtensor<[256,256],f16>, %wv: !torch.vtensor<[256,256],f16>, %wo: !torch.vtensor<[256,256],f16>) -> !torch.vtensor<[1,128,256],f16> {
  %none = torch.constant.none
  %false = torch.constant.bool false
  %p0 = torch.constant.float 0.000000e+00
  %int1 = torch.constant.int 1
  %int2 = torch.constant.int 2
  %int4 = torch.constant.int 4
  %int64 = torch.constant.int 64
  %int128 = torch.constant.int 128
  %int256 = torch.constant.int 256
  %q = torch.aten.linear %x, %wq, %none : !torch.vtensor<[1,128,256],f16>, !torch.vtensor<[256,256],f16>, !torch.none -> !torch.vtensor<[1,128,256],f16>
  %k = torch.aten.linear %x, %wk, %none : !torch.vtensor<[1,128,256],f16>, !torch.vtensor<[256,256],f16>, !torch.none -> !torch.vtensor<[1,128,256],f16>
  %v = torch.aten.linear %x, %wv, %none : !torch.vtensor<[1,128,256],f16>, !torch.vtensor<[256,256],f16>, !torch.none -> !torch.vtensor<[1,128,256],f16>
  %shape = torch.prim.ListConstruct %int1, %int128, %int4, %int64 : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %q4 = torch.aten.view %q, %shape : !torch.vtensor<[1,128,256],f16>, !torch.list<int> -> !torch.vtensor<[1,128,4,64],f16>
  %k4 = torch.aten.view %k, %shape : !torch.vtensor<[1,128,256],f16>, !torch.list<int> -> !torch.vtensor<[1,128,4,64],f16>
  %v4 = torch.aten.view %v, %shape : !torch.vtensor<[1,128,256],f16>, !torch.list<int> -> !torch.vtensor<[1,128,4,64],f16>
  %qh = torch.aten.transpose.int %q4, %int1, %int2 : !torch.vtensor<[1,128,4,64],f16>, !torch.int, !torch.int -> !torch.vtensor<[1,4,128,64],f16>
  %kh = torch.aten.transpose.int %k4, %int1, %int2 : !torch.vtensor<[1,128,4,64],f16>, !torch.int, !torch.int -> !torch.vtensor<[1,4,128,64],f16>
  %vh = torch.aten.transpose.int %v4, %int1, %int2 : !torch.vtensor<[1,128,4,64],f16>, !torch.int, !torch.int -> !torch.vtensor<[1,4,128,64],f16>
  %a = torch.aten.scaled_dot_product_attention %qh, %kh, %vh, %none, %p0, %false, %none, %false : !torch.vtensor<[1,4,128,64],f16>, !torch.vtensor<[1,4,128,64],f16>, !torch.vtensor<[1,4,128,64],f16>, !torch.none, !torch.float, !torch.bool, !torch.none, !torch.bool -> !torch.vtensor<[1,4,128,64],f16>
  %at = torch.aten.transpose.int %a, %int1, %int2 : !torch.vtensor<[1,4,128,64],f16>, !torch.int, !torch.int -> !torch.vtensor<[1,128,4,64],f16>
  %shape3 = torch.prim.ListConstruct %int1, %int128, %int256 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
  %merged = torch.aten.view %at, %shape3 : !torch.vtensor<[1,128,4,64],f16>, !torch.list<int> -> !torch.vtensor<[1,128,256],f16>
  %o = torch.aten.linear %merged, %wo, %none : !torch.vtensor<[1,128,256],f16>, !torch.vtensor<[256,256],f16>, !torch.none -> !torch.vtensor<[1,128,256],f16>
  %y = torch.aten.add.Tensor %o, %x, %int1 : !torch.vtensor<[1,128,256],f16>, !torch.vtensor<[1,128,256],f16>, !torch.int -> !torch.vtensor<[1,128,256],f16>
  return %y : !torch.vtensor<[1,128,256],f16>
}

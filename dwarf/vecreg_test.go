package dwarf_test

import (
	"math/big"
	"testing"

	"github.com/rrmcp/rrmcp/dwarf"
	"github.com/rrmcp/rrmcp/dwarf/format"
)

// TestVec128AsGDB: an xmm register's vec128 union prints as GDB 13
// prints it (p $xmm0 at hit() in counter, under GDB), NaNs with their
// payloads in every float width (bfloat16 -nan(0x7f), half
// -nan(0x3ff), float -nan(0x7f0000), double), half and bfloat16 values
// with GDB's 5 and 4 digits, and the vectors of integers as numbers.
func TestVec128AsGDB(t *testing.T) {
	tests := []struct{ uint128, gdb string }{
		{"338958311018522365196691232599582965760", "{v8_bfloat16 = {0, 0, 0, -nan(0x7f), -nan(0x7f), -1.701e+38, -1.701e+38, -1.701e+38}, v8_half = {0, 0, 0, -nan(0x3ff), -nan(0x3ff), -nan(0x300), -nan(0x300), -nan(0x300)}, v4_float = {0, -nan(0x7f0000), -1.71470391e+38, -1.71465219e+38}, v2_double = {-nan(0xf000000000000), -5.82767264895236e+303}, v16_int8 = {0, 0, 0, 0, 0, 0, -1, -1, -1, -1, 0, -1, 0, -1, 0, -1}, v8_int16 = {0, 0, 0, -1, -1, -256, -256, -256}, v4_int32 = {0, -65536, -16711681, -16711936}, v2_int64 = {-281474976710656, -71777214294589441}, uint128 = 338958311018522365196691232599582965760}"},
		{"1329248278504009275281142088625815551", "{v8_bfloat16 = {-nan(0x7f), -nan(0x7f), -nan(0x7f), 2.351e-38, 2.369e-38, 2.351e-38, 2.351e-38, 2.351e-38}, v8_half = {-nan(0x3ff), -nan(0x3ff), -nan(0x3ff), 1.5259e-05, 1.5318e-05, 1.5259e-05, 1.5259e-05, 1.5259e-05}, v4_float = {-nan(0x7fffff), 2.36935552e-38, 2.35106073e-38, 2.35106045e-38}, v2_double = {7.7468171457786707e-304, 7.2929021058051654e-304}, v16_int8 = {-1, -1, -1, -1, -1, -1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1}, v8_int16 = {-1, -1, -1, 256, 257, 256, 256, 256}, v4_int32 = {-1, 16842751, 16777473, 16777472}, v2_int64 = {72339069014638591, 72058693566333185}, uint128 = 1329248278504009275281142088625815551}"},
		{"129461472276806273031428299110409980242", "{v8_bfloat16 = {8.602e+05, 13.38, 3392, 9.223e+18, 1.078e+27, 1.075e+21, 1.636e+19, 2.64e+20}, v8_half = {10.641, 2.668, 5.3281, 448, 4476, 820.5, 472.75, 690.5}, v4_float = {13.3929005, 9.24288617e+18, 1.07647508e+21, 2.64448608e+20}, v2_double = {4.1609952473859919e+149, 1.5023989221213642e+161}, v16_int8 = {82, 73, 86, 65, 84, 69, 0, 95, 95, 108, 105, 98, 99, 95, 101, 97}, v8_int16 = {18770, 16726, 17748, 24320, 27743, 25193, 24419, 24933}, v4_int32 = {1096173906, 1593853268, 1651076191, 1634033507}, v2_int64 = {6845547661778897234, 7018120474784263263}, uint128 = 129461472276806273031428299110409980242}"},
	}
	for _, tt := range tests {
		v, ok := new(big.Int).SetString(tt.uint128, 10)
		if !ok {
			t.Fatal(tt.uint128)
		}
		be := v.FillBytes(make([]byte, 16))
		le := make([]byte, 16)
		for i := range be {
			le[i] = be[15-i]
		}
		o := dwarf.BytesObject(dwarf.Vec128(dwarf.LangC), le)
		if got := format.Text(&dwarf.ValueEnv{}, o); got != tt.gdb {
			t.Errorf("vec128 %s:\n  ours %s\n  gdb  %s", tt.uint128, got, tt.gdb)
		}
	}
}

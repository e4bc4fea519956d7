//go:build amd64 && !purego

#include "textflag.h"

// The byte offsets of the grid form's input arrays from β3 (gStride = 4112
// entries apart; ule_grid.go).
#define OFF_DELTA 32896
#define OFF_G 65792
#define OFF_QL 98688
#define OFF_QR 131584
#define OFF_DA 164480
#define OFF_DB 197376

// func gridBlocksAVX2(k *gridCoef, x, wb, lt, rt *float64, cnt *float32, n int, lanes *[16]float64)
//
// gridBlocksGo four cells at a time, the same operations in the same order
// (no fused multiply-adds), so that the results agree bit for bit. The
// run's coefficients are read from k.vec, four copies each.
TEXT ·gridBlocksAVX2(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), DX
	ADDQ $80, DX                      // &k.vec
	MOVQ x+8(FP), SI
	MOVQ wb+16(FP), DI
	MOVQ lt+24(FP), R8
	MOVQ rt+32(FP), R9
	MOVQ cnt+40(FP), R11
	MOVQ n+48(FP), BX

	VMOVUPD gridMant<>(SB), Y15
	VMOVUPD gridOne<>(SB), Y14
	VMOVUPD gridSqrt2<>(SB), Y13
	VMOVUPD gridMagic<>(SB), Y12
	VXORPD Y8, Y8, Y8                 // Σ w·β3, four lanes
	VXORPD Y9, Y9, Y9                 // Σ w·δ3
	VXORPD Y6, Y6, Y6                 // Σ n·ln m
	VXORPD Y7, Y7, Y7                 // Σ n·e
	XORQ CX, CX

loop:
	// D = c1·β3 + c2·δ3 + β2·g3 + p2l·ql3 + p2r·qr3 + cB·δ3Θ(b3) − cA·δ3Θ(a3)
	VMOVUPD (SI)(CX*8), Y10           // β3
	VMOVUPD OFF_DELTA(SI)(CX*8), Y11  // δ3
	VMULPD 0(DX), Y10, Y0
	VMULPD 32(DX), Y11, Y1
	VADDPD Y1, Y0, Y0
	VMOVUPD OFF_G(SI)(CX*8), Y1
	VMULPD 64(DX), Y1, Y1
	VADDPD Y1, Y0, Y0
	VMOVUPD OFF_QL(SI)(CX*8), Y1
	VMULPD 96(DX), Y1, Y1
	VADDPD Y1, Y0, Y0
	VMOVUPD OFF_QR(SI)(CX*8), Y1
	VMULPD 128(DX), Y1, Y1
	VADDPD Y1, Y0, Y0
	VMOVUPD OFF_DB(SI)(CX*8), Y1
	VMULPD 192(DX), Y1, Y1
	VADDPD Y1, Y0, Y0
	VMOVUPD OFF_DA(SI)(CX*8), Y1
	VMULPD 160(DX), Y1, Y1
	VSUBPD Y1, Y0, Y0                 // D
	VCVTPS2PD (R11)(CX*4), Y1         // n
	VDIVPD Y0, Y1, Y2                 // w = n/D
	VMULPD Y2, Y10, Y10
	VADDPD Y10, Y8, Y8                // Σ w·β3
	VMULPD Y2, Y11, Y11
	VADDPD Y11, Y9, Y9                // Σ w·δ3
	VMULPD 64(DX), Y2, Y10
	VADDPD (DI)(CX*8), Y10, Y10
	VMOVUPD Y10, (DI)(CX*8)           // wb += w·β2
	VMULPD 224(DX), Y2, Y11           // w·δ2
	VADDPD (R8)(CX*8), Y11, Y10
	VMOVUPD Y10, (R8)(CX*8)           // lt += w·δ2
	VADDPD (R9)(CX*8), Y11, Y10
	VMOVUPD Y10, (R9)(CX*8)           // rt += w·δ2 (after lt's store: they may be one array)

	// ln D = ln m + e·ln 2 (gridLogCell)
	VPAND Y15, Y0, Y2
	VPOR Y14, Y2, Y2                  // m in [1, 2), as bits
	VPSRLQ $52, Y0, Y0                // the biased exponent
	VPCMPGTQ Y13, Y2, Y3              // m > √2 (all ones, −1)
	VPSUBQ Y3, Y0, Y0                 // ... then the exponent + 1
	VPSLLQ $63, Y3, Y3
	VPSRLQ $11, Y3, Y3                // ... and 2^52 (one off the exponent field)
	VPSUBQ Y3, Y2, Y2                 // ... and m/2: m in [√2/2, √2)
	VPOR Y12, Y0, Y0
	VSUBPD gridBias<>(SB), Y0, Y0     // e
	VMULPD Y0, Y1, Y0
	VADDPD Y0, Y7, Y7                 // Σ n·e
	VSUBPD Y14, Y2, Y3                // m − 1
	VADDPD Y14, Y2, Y4                // m + 1
	VDIVPD Y4, Y3, Y3                 // s = (m − 1)/(m + 1)
	VMULPD Y3, Y3, Y4                 // z = s²
	VMULPD Y4, Y4, Y5                 // z²
	VMULPD Y5, Y5, Y10                // z⁴
	VMULPD gridC5<>(SB), Y4, Y2
	VADDPD gridC3<>(SB), Y2, Y2       // e0 = 2/3 + 2/5·z
	VMULPD gridC9<>(SB), Y4, Y0
	VADDPD gridC7<>(SB), Y0, Y0       // e1 = 2/7 + 2/9·z
	VMULPD Y5, Y0, Y0
	VADDPD Y0, Y2, Y2                 // f0 = e0 + e1·z²
	VMULPD gridC13<>(SB), Y4, Y0
	VADDPD gridC11<>(SB), Y0, Y0      // e2
	VMULPD gridC17<>(SB), Y4, Y11
	VADDPD gridC15<>(SB), Y11, Y11    // e3
	VMULPD Y5, Y11, Y11
	VADDPD Y11, Y0, Y0                // f1 = e2 + e3·z²
	VMULPD Y10, Y0, Y0
	VADDPD Y0, Y2, Y2                 // g = f0 + f1·z⁴
	VMULPD Y10, Y10, Y11              // z⁸
	VMULPD gridC21<>(SB), Y4, Y0
	VADDPD gridC19<>(SB), Y0, Y0      // e4
	VMULPD Y11, Y0, Y0
	VADDPD Y0, Y2, Y2                 // q = g + e4·z⁸
	VMULPD Y4, Y2, Y2
	VADDPD gridTwo<>(SB), Y2, Y2
	VMULPD Y2, Y3, Y2                 // ln m = s·(2 + z·q)
	VMULPD Y2, Y1, Y2
	VADDPD Y2, Y6, Y6                 // Σ n·ln m

	ADDQ $4, CX
	CMPQ CX, BX
	JLT loop

	MOVQ lanes+56(FP), AX
	VMOVUPD Y8, (AX)
	VMOVUPD Y9, 32(AX)
	VMOVUPD Y6, 64(AX)
	VMOVUPD Y7, 96(AX)
	VZEROUPPER
	RET

DATA gridMant<>+0(SB)/8, $0x000FFFFFFFFFFFFF
DATA gridMant<>+8(SB)/8, $0x000FFFFFFFFFFFFF
DATA gridMant<>+16(SB)/8, $0x000FFFFFFFFFFFFF
DATA gridMant<>+24(SB)/8, $0x000FFFFFFFFFFFFF
GLOBL gridMant<>(SB), RODATA|NOPTR, $32

DATA gridOne<>+0(SB)/8, $0x3FF0000000000000
DATA gridOne<>+8(SB)/8, $0x3FF0000000000000
DATA gridOne<>+16(SB)/8, $0x3FF0000000000000
DATA gridOne<>+24(SB)/8, $0x3FF0000000000000
GLOBL gridOne<>(SB), RODATA|NOPTR, $32

DATA gridSqrt2<>+0(SB)/8, $0x3FF6A09E667F3BCD
DATA gridSqrt2<>+8(SB)/8, $0x3FF6A09E667F3BCD
DATA gridSqrt2<>+16(SB)/8, $0x3FF6A09E667F3BCD
DATA gridSqrt2<>+24(SB)/8, $0x3FF6A09E667F3BCD
GLOBL gridSqrt2<>(SB), RODATA|NOPTR, $32

DATA gridMagic<>+0(SB)/8, $0x4330000000000000
DATA gridMagic<>+8(SB)/8, $0x4330000000000000
DATA gridMagic<>+16(SB)/8, $0x4330000000000000
DATA gridMagic<>+24(SB)/8, $0x4330000000000000
GLOBL gridMagic<>(SB), RODATA|NOPTR, $32

DATA gridBias<>+0(SB)/8, $0x43300000000003FF
DATA gridBias<>+8(SB)/8, $0x43300000000003FF
DATA gridBias<>+16(SB)/8, $0x43300000000003FF
DATA gridBias<>+24(SB)/8, $0x43300000000003FF
GLOBL gridBias<>(SB), RODATA|NOPTR, $32

DATA gridTwo<>+0(SB)/8, $0x4000000000000000
DATA gridTwo<>+8(SB)/8, $0x4000000000000000
DATA gridTwo<>+16(SB)/8, $0x4000000000000000
DATA gridTwo<>+24(SB)/8, $0x4000000000000000
GLOBL gridTwo<>(SB), RODATA|NOPTR, $32

// 2/3
DATA gridC3<>+0(SB)/8, $0x3FE5555555555555
DATA gridC3<>+8(SB)/8, $0x3FE5555555555555
DATA gridC3<>+16(SB)/8, $0x3FE5555555555555
DATA gridC3<>+24(SB)/8, $0x3FE5555555555555
GLOBL gridC3<>(SB), RODATA|NOPTR, $32

DATA gridC5<>+0(SB)/8, $0x3FD999999999999A
DATA gridC5<>+8(SB)/8, $0x3FD999999999999A
DATA gridC5<>+16(SB)/8, $0x3FD999999999999A
DATA gridC5<>+24(SB)/8, $0x3FD999999999999A
GLOBL gridC5<>(SB), RODATA|NOPTR, $32

DATA gridC7<>+0(SB)/8, $0x3FD2492492492492
DATA gridC7<>+8(SB)/8, $0x3FD2492492492492
DATA gridC7<>+16(SB)/8, $0x3FD2492492492492
DATA gridC7<>+24(SB)/8, $0x3FD2492492492492
GLOBL gridC7<>(SB), RODATA|NOPTR, $32

DATA gridC9<>+0(SB)/8, $0x3FCC71C71C71C71C
DATA gridC9<>+8(SB)/8, $0x3FCC71C71C71C71C
DATA gridC9<>+16(SB)/8, $0x3FCC71C71C71C71C
DATA gridC9<>+24(SB)/8, $0x3FCC71C71C71C71C
GLOBL gridC9<>(SB), RODATA|NOPTR, $32

DATA gridC11<>+0(SB)/8, $0x3FC745D1745D1746
DATA gridC11<>+8(SB)/8, $0x3FC745D1745D1746
DATA gridC11<>+16(SB)/8, $0x3FC745D1745D1746
DATA gridC11<>+24(SB)/8, $0x3FC745D1745D1746
GLOBL gridC11<>(SB), RODATA|NOPTR, $32

DATA gridC13<>+0(SB)/8, $0x3FC3B13B13B13B14
DATA gridC13<>+8(SB)/8, $0x3FC3B13B13B13B14
DATA gridC13<>+16(SB)/8, $0x3FC3B13B13B13B14
DATA gridC13<>+24(SB)/8, $0x3FC3B13B13B13B14
GLOBL gridC13<>(SB), RODATA|NOPTR, $32

DATA gridC15<>+0(SB)/8, $0x3FC1111111111111
DATA gridC15<>+8(SB)/8, $0x3FC1111111111111
DATA gridC15<>+16(SB)/8, $0x3FC1111111111111
DATA gridC15<>+24(SB)/8, $0x3FC1111111111111
GLOBL gridC15<>(SB), RODATA|NOPTR, $32

DATA gridC17<>+0(SB)/8, $0x3FBE1E1E1E1E1E1E
DATA gridC17<>+8(SB)/8, $0x3FBE1E1E1E1E1E1E
DATA gridC17<>+16(SB)/8, $0x3FBE1E1E1E1E1E1E
DATA gridC17<>+24(SB)/8, $0x3FBE1E1E1E1E1E1E
GLOBL gridC17<>(SB), RODATA|NOPTR, $32

DATA gridC19<>+0(SB)/8, $0x3FBAF286BCA1AF28
DATA gridC19<>+8(SB)/8, $0x3FBAF286BCA1AF28
DATA gridC19<>+16(SB)/8, $0x3FBAF286BCA1AF28
DATA gridC19<>+24(SB)/8, $0x3FBAF286BCA1AF28
GLOBL gridC19<>(SB), RODATA|NOPTR, $32

DATA gridC21<>+0(SB)/8, $0x3FB8618618618618
DATA gridC21<>+8(SB)/8, $0x3FB8618618618618
DATA gridC21<>+16(SB)/8, $0x3FB8618618618618
DATA gridC21<>+24(SB)/8, $0x3FB8618618618618
GLOBL gridC21<>(SB), RODATA|NOPTR, $32

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

// func gridBlocksAVX2(k *gridCoef, x, wb, lt, rt, dr, cnt *float64, n int, lanes *[8]float64)
//
// gridBlocksGo four cells at a time, the same operations in the same order
// (no fused multiply-adds), so that the results agree bit for bit.
TEXT ·gridBlocksAVX2(SB), NOSPLIT, $0-72
	MOVQ k+0(FP), DX
	MOVQ x+8(FP), SI
	MOVQ wb+16(FP), DI
	MOVQ lt+24(FP), R8
	MOVQ rt+32(FP), R9
	MOVQ dr+40(FP), R10
	MOVQ cnt+48(FP), R11
	MOVQ n+56(FP), BX

	VBROADCASTSD 0(DX), Y0  // c1
	VBROADCASTSD 8(DX), Y1  // c2
	VBROADCASTSD 16(DX), Y2 // β2
	VBROADCASTSD 24(DX), Y3 // p2l
	VBROADCASTSD 32(DX), Y4 // p2r
	VBROADCASTSD 40(DX), Y5 // cA
	VBROADCASTSD 48(DX), Y6 // cB
	VBROADCASTSD 56(DX), Y7 // δ2
	VXORPD Y8, Y8, Y8       // Σ w·β3, four lanes
	VXORPD Y9, Y9, Y9       // Σ w·δ3
	XORQ CX, CX

loop:
	VMOVUPD (SI)(CX*8), Y10           // β3
	VMOVUPD OFF_DELTA(SI)(CX*8), Y11  // δ3
	VMULPD Y10, Y0, Y12               // D = c1·β3
	VMULPD Y11, Y1, Y13
	VADDPD Y13, Y12, Y12              // + c2·δ3
	VMULPD OFF_G(SI)(CX*8), Y2, Y13
	VADDPD Y13, Y12, Y12              // + β2·g3
	VMULPD OFF_QL(SI)(CX*8), Y3, Y13
	VADDPD Y13, Y12, Y12              // + p2l·ql3
	VMULPD OFF_QR(SI)(CX*8), Y4, Y13
	VADDPD Y13, Y12, Y12              // + p2r·qr3
	VMULPD OFF_DB(SI)(CX*8), Y6, Y13
	VADDPD Y13, Y12, Y12              // + cB·δ3Θ(b3)
	VMULPD OFF_DA(SI)(CX*8), Y5, Y13
	VSUBPD Y13, Y12, Y12              // − cA·δ3Θ(a3)
	VMOVUPD Y12, (R10)(CX*8)          // drow
	VMOVUPD (R11)(CX*8), Y13          // n
	VDIVPD Y12, Y13, Y14              // w = n/D
	VMULPD Y14, Y10, Y10
	VADDPD Y10, Y8, Y8                // Σ w·β3
	VMULPD Y14, Y11, Y11
	VADDPD Y11, Y9, Y9                // Σ w·δ3
	VMULPD Y14, Y2, Y10
	VADDPD (DI)(CX*8), Y10, Y10
	VMOVUPD Y10, (DI)(CX*8)           // wb += w·β2
	VMULPD Y14, Y7, Y11               // w·δ2
	VADDPD (R8)(CX*8), Y11, Y12
	VMOVUPD Y12, (R8)(CX*8)           // lt += w·δ2
	VADDPD (R9)(CX*8), Y11, Y13
	VMOVUPD Y13, (R9)(CX*8)           // rt += w·δ2 (after lt's store: they may be one array)
	ADDQ $4, CX
	CMPQ CX, BX
	JLT loop

	MOVQ lanes+64(FP), AX
	VMOVUPD Y8, (AX)
	VMOVUPD Y9, 32(AX)
	VZEROUPPER
	RET

// the mantissa bits; 1.0; √2 (as bits); 2^52 (as bits, and 2^52 + 1023); 2
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

// func gridLLBlocksAVX2(d, n *float64, cnt int, lanes *[8]float64)
//
// gridLLBlocksGo four entries at a time, the same operations in the same
// order.
TEXT ·gridLLBlocksAVX2(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), SI
	MOVQ n+8(FP), DI
	MOVQ cnt+16(FP), BX

	VMOVUPD gridMant<>(SB), Y15
	VMOVUPD gridOne<>(SB), Y14
	VMOVUPD gridSqrt2<>(SB), Y13
	VMOVUPD gridMagic<>(SB), Y12
	VXORPD Y6, Y6, Y6 // Σ n·u, four lanes
	VXORPD Y7, Y7, Y7 // Σ n·e
	XORQ CX, CX

llloop:
	VMOVUPD (SI)(CX*8), Y0       // d
	VPAND Y15, Y0, Y1
	VPOR Y14, Y1, Y1             // m in [1, 2), as bits
	VPSRLQ $52, Y0, Y0           // the biased exponent
	VPCMPGTQ Y13, Y1, Y2         // m > √2 (all ones, −1)
	VPSUBQ Y2, Y0, Y0            // ... then the exponent + 1
	VPSLLQ $63, Y2, Y3
	VPSRLQ $11, Y3, Y3           // ... and 2^52 (one off the exponent field)
	VPSUBQ Y3, Y1, Y1            // ... and m/2: m in [√2/2, √2)
	VPOR Y12, Y0, Y0
	VSUBPD gridBias<>(SB), Y0, Y0 // e
	VSUBPD Y14, Y1, Y2           // m − 1
	VADDPD Y14, Y1, Y3           // m + 1
	VDIVPD Y3, Y2, Y2            // s = (m − 1)/(m + 1)
	VMULPD Y2, Y2, Y3            // z = s²
	VMOVUPD gridC21<>(SB), Y4    // q
	VMULPD Y3, Y4, Y4
	VADDPD gridC19<>(SB), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD gridC17<>(SB), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD gridC15<>(SB), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD gridC13<>(SB), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD gridC11<>(SB), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD gridC9<>(SB), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD gridC7<>(SB), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD gridC5<>(SB), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD gridC3<>(SB), Y4, Y4
	VMULPD Y3, Y4, Y4
	VADDPD gridTwo<>(SB), Y4, Y4
	VMULPD Y4, Y2, Y4            // u = ln m = s·(2 + z·q)
	VMOVUPD (DI)(CX*8), Y1       // n
	VMULPD Y4, Y1, Y4
	VADDPD Y4, Y6, Y6            // Σ n·u
	VMULPD Y0, Y1, Y0
	VADDPD Y0, Y7, Y7            // Σ n·e
	ADDQ $4, CX
	CMPQ CX, BX
	JLT llloop

	MOVQ lanes+24(FP), AX
	VMOVUPD Y6, (AX)
	VMOVUPD Y7, 32(AX)
	VZEROUPPER
	RET

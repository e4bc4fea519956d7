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

// func gridBlocksAVX2(k *gridCoef, x, wb, lt, rt *float64, cnt *float32, n, nbits int, lanes *gridLanes, flags int)
//
// gridBlocksGo four cells at a time, the same operations in the same order
// (the same fused multiply-adds: math.FMA there), so that the results agree
// bit for bit. flags (gridUseDB, gridUseDA, gridUseLt, gridUseRt) say which
// terms of D and which accumulations the run has: a term whose coefficient
// is 0 adds ±0 to D, which leaves its bits, and is skipped. The
// run's coefficients are read from k.vec, four copies each.
TEXT ·gridBlocksAVX2(SB), NOSPLIT, $0-80
	MOVQ k+0(FP), DX
	ADDQ $80, DX                      // &k.vec
	MOVQ x+8(FP), SI
	MOVQ wb+16(FP), DI
	MOVQ lt+24(FP), R8
	MOVQ rt+32(FP), R9
	MOVQ cnt+40(FP), R11
	MOVQ n+48(FP), BX

	MOVQ nbits+56(FP), R12
	MOVQ flags+72(FP), R10

	VMOVUPD gridMant<>(SB), Y15
	VMOVUPD gridOne<>(SB), Y14
	VMOVUPD gridExpLo<>(SB), Y13
	VXORPD Y12, Y12, Y12              // out of range, four lanes
	VXORPD Y8, Y8, Y8                 // Σ w·β3, four lanes
	VXORPD Y9, Y9, Y9                 // Σ w·δ3
	MOVQ lanes+64(FP), AX
	VMOVUPD 64(AX), Y6                // P
	VMOVDQU 96(AX), Y7                // E
	XORQ CX, CX

loop:
	// D = c1·β3 + c2·δ3 + β2·g3 + p2l·ql3 + p2r·qr3 + cB·δ3Θ(b3) − cA·δ3Θ(a3),
	// one multiplication, then fused multiply-adds in that order (gridD)
	VMOVUPD (SI)(CX*8), Y10           // β3
	VMOVUPD OFF_DELTA(SI)(CX*8), Y11  // δ3
	VMULPD 0(DX), Y10, Y0
	VFMADD231PD 32(DX), Y11, Y0
	VMOVUPD OFF_G(SI)(CX*8), Y1
	VFMADD231PD 64(DX), Y1, Y0
	VMOVUPD OFF_QL(SI)(CX*8), Y1
	VFMADD231PD 96(DX), Y1, Y0
	VMOVUPD OFF_QR(SI)(CX*8), Y1
	VFMADD231PD 128(DX), Y1, Y0
	BTQ $0, R10
	JCC nodb
	VMOVUPD OFF_DB(SI)(CX*8), Y1
	VFMADD231PD 192(DX), Y1, Y0

nodb:
	BTQ $1, R10
	JCC noda
	VMOVUPD OFF_DA(SI)(CX*8), Y1
	VFNMADD231PD 160(DX), Y1, Y0      // D

noda:
	VCVTPS2PD (R11)(CX*4), Y1         // n
	VDIVPD Y0, Y1, Y2                 // w = n/D
	VFMADD231PD Y2, Y10, Y8           // Σ w·β3
	VFMADD231PD Y2, Y11, Y9           // Σ w·δ3
	VMOVUPD (DI)(CX*8), Y10
	VFMADD231PD 64(DX), Y2, Y10
	VMOVUPD Y10, (DI)(CX*8)           // wb += w·β2
	VMULPD 224(DX), Y2, Y11           // w·δ2
	BTQ $2, R10
	JCC nolt
	VADDPD (R8)(CX*8), Y11, Y10
	VMOVUPD Y10, (R8)(CX*8)           // lt += w·δ2

nolt:
	BTQ $3, R10
	JCC nort
	VADDPD (R9)(CX*8), Y11, Y10
	VMOVUPD Y10, (R9)(CX*8)           // rt += w·δ2

nort:

	// LL: F = D^n from n's bits and D's repeated squares, P ·= F, and P's
	// binary exponent moves into E (gridLLCell).
	VCVTTPS2DQ (R11)(CX*4), X3
	VPMOVZXDQ X3, Y3                  // n, as integers
	VMOVAPD Y0, Y4                    // D^(2^b)
	VMOVAPD Y14, Y5                   // F = 1
	MOVQ R12, R13
	TESTQ R13, R13
	JZ renorm

bits:
	VPSLLQ $63, Y3, Y2                // bit b of n, in the sign
	VBLENDVPD Y2, Y4, Y14, Y2         // D^(2^b) where the bit is set, else 1
	VMULPD Y2, Y5, Y5
	VMULPD Y4, Y4, Y4
	VPSRLQ $1, Y3, Y3
	DECQ R13
	JNZ bits

renorm:
	VMULPD Y5, Y6, Y6                 // P ·= F
	VPSRLQ $52, Y6, Y2                // the biased exponent (and sign) of P
	VPADDQ Y2, Y7, Y7                 // E += it
	VPAND Y15, Y6, Y6
	VPOR Y14, Y6, Y6                  // P in [1, 2)
	VPCMPGTQ Y2, Y13, Y10             // the exponent below gridExpLo
	VPOR Y10, Y12, Y12
	VPCMPGTQ gridExpHi<>(SB), Y2, Y10 // ... or above gridExpHi
	VPOR Y10, Y12, Y12

	ADDQ $4, CX
	CMPQ CX, BX
	JLT loop

	VMOVUPD Y8, (AX)
	VMOVUPD Y9, 32(AX)
	VMOVUPD Y6, 64(AX)
	VMOVDQU Y7, 96(AX)
	VMOVDQU Y12, 128(AX)
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

DATA gridExpLo<>+0(SB)/8, $64
DATA gridExpLo<>+8(SB)/8, $64
DATA gridExpLo<>+16(SB)/8, $64
DATA gridExpLo<>+24(SB)/8, $64
GLOBL gridExpLo<>(SB), RODATA|NOPTR, $32

DATA gridExpHi<>+0(SB)/8, $1983
DATA gridExpHi<>+8(SB)/8, $1983
DATA gridExpHi<>+16(SB)/8, $1983
DATA gridExpHi<>+24(SB)/8, $1983
GLOBL gridExpHi<>(SB), RODATA|NOPTR, $32

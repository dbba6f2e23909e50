//! Zobrist hashing with the Polyglot "Random64" keys, so a position's key equals its Polyglot book key
//! in all but one case: the position key holds the en-passant term only when the capture is legal,
//! Polyglot whenever a pawn of the side to move stands beside the pushed pawn (pinned or not);
//! `openings::polyglot_key` adds the term for that case.
//!
//! The 781 numbers are the Polyglot book format's published constants (indexing: 64 * kind + square
//! for pieces with kind = 2 * piece type + 1 for White, then four castling keys, eight en-passant file
//! keys and the side-to-move key). The tests compare them with tests/fixtures/polyglot-random64.txt
//! and, when it is there, with ../shared/data/polyglot-random64.txt.

use super::types::{CastlingRights, Color, File, Piece, Square};

/// Key of `piece` standing on `sq`.
#[inline(always)]
pub fn piece_key(piece: Piece, sq: Square) -> u64 {
    let kind = 2 * piece.kind.index() + (piece.color == Color::White) as usize;
    RANDOM64[64 * kind + sq.index()]
}

/// Combined key of a set of castling rights with their rooks in the standard corners (Polyglot's
/// keys). A position adds `castling_file_key` for each right whose rook stands elsewhere.
#[inline(always)]
pub fn castling_key(rights: CastlingRights) -> u64 {
    CASTLING_KEYS[rights.0 as usize]
}

/// The extra key of castling right `right` (`CastlingRights::index`: 0 white king side, 1 white
/// queen side, 2 black king side, 3 black queen side) held with its rook on `rook_file`. It is 0
/// for the standard corner (h for the king side, a for the queen side), so standard positions
/// keep their Polyglot keys; Chess960 positions differing only in which rook may castle get
/// different keys. The other values are SplitMix64 outputs of the seed `0x960 + 8 * right + file`.
#[inline]
pub fn castling_file_key(right: usize, rook_file: File) -> u64 {
    CASTLING_FILE_KEYS[right][rook_file.index()]
}

const CASTLING_FILE_KEYS: [[u64; 8]; 4] = {
    let mut keys = [[0u64; 8]; 4];
    let mut right = 0;
    while right < 4 {
        let corner = if right % 2 == 0 { 7 } else { 0 };
        let mut file = 0;
        while file < 8 {
            if file != corner {
                keys[right][file] = splitmix64((0x960 + 8 * right + file) as u64);
            }
            file += 1;
        }
        right += 1;
    }
    keys
};

/// One SplitMix64 step: a well-mixed 64-bit value from `seed`.
const fn splitmix64(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Key of an en-passant capture being possible on `file` (Polyglot's rule for when it applies:
/// see `openings::polyglot_key`).
#[inline(always)]
pub fn en_passant_key(file: File) -> u64 {
    RANDOM64[772 + file.index()]
}

/// XORed in when White is to move.
pub const WHITE_TO_MOVE_KEY: u64 = RANDOM64[780];

/// Polyglot's combined castling keys for each set of the four rights.
pub(super) const CASTLING_KEYS: [u64; 16] = {
    let mut keys = [0u64; 16];
    let mut rights = 0;
    while rights < 16 {
        let mut bit = 0;
        while bit < 4 {
            if rights & (1 << bit) != 0 {
                keys[rights] ^= RANDOM64[768 + bit];
            }
            bit += 1;
        }
        rights += 1;
    }
    keys
};

#[rustfmt::skip]
pub(crate) const RANDOM64: [u64; 781] = [
    0x9d39247e_33776d41, 0x2af73980_05aaa5c7, 0x44db0150_24623547, 0x9c15f73e_62a76ae2,
    0x75834465_489c0c89, 0x3290ac3a_203001bf, 0x0fbbad1f_61042279, 0xe83a908f_f2fb60ca,
    0x0d7e765d_58755c10, 0x1a083822_ceafe02d, 0x9605d5f0_e25ec3b0, 0xd021ff5c_d13a2ed5,
    0x40bdf15d_4a672e32, 0x01135514_6fd56395, 0x5db48320_46f3d9e5, 0x239f8b2d_7ff719cc,
    0x05d1a1ae_85b49aa1, 0x679f848f_6e8fc971, 0x7449bbff_801fed0b, 0x7d11cdb1_c3b7adf0,
    0x82c7709e_781eb7cc, 0xf3218f1c_9510786c, 0x331478f3_af51bbe6, 0x4bb38de5_e7219443,
    0xaa649c6e_bcfd50fc, 0x8dbd98a3_52afd40b, 0x87d2074b_81d79217, 0x19f3c751_d3e92ae1,
    0xb4ab30f0_62b19abf, 0x7b0500ac_42047ac4, 0xc9452ca8_1a09d85d, 0x24aa6c51_4da27500,
    0x4c9f3442_7501b447, 0x14a68fd7_3c910841, 0xa71b9b83_461cbd93, 0x03488b95_b0f1850f,
    0x637b2b34_ff93c040, 0x09d1bc9a_3dd90a94, 0x35756683_34a1dd3b, 0x735e2b97_a4c45a23,
    0x18727070_f1bd400b, 0x1fcbacd2_59bf02e7, 0xd310a7c2_ce9b6555, 0xbf983fe0_fe5d8244,
    0x9f74d14f_7454a824, 0x51ebdc4a_b9ba3035, 0x5c82c505_db9ab0fa, 0xfcf7fe8a_3430b241,
    0x3253a729_b9ba3dde, 0x8c74c368_081b3075, 0xb9bc6c87_167c33e7, 0x7ef48f2b_83024e20,
    0x11d505d4_c351bd7f, 0x6568fca9_2c76a243, 0x4de0b0f4_0f32a7b8, 0x96d69346_0cc37e5d,
    0x42e240cb_63689f2f, 0x6d2bdcda_e2919661, 0x42880b02_36e4d951, 0x5f0f4a58_98171bb6,
    0x39f890f5_79f92f88, 0x93c5b5f4_7356388b, 0x63dc359d_8d231b78, 0xec16ca8a_ea98ad76,
    0x5355f900_c2a82dc7, 0x07fb9f85_5a997142, 0x5093417a_a8a7ed5e, 0x7bcbc38d_a25a7f3c,
    0x19fc8a76_8cf4b6d4, 0x637a7780_decfc0d9, 0x8249a47a_ee0e41f7, 0x79ad6955_01e7d1e8,
    0x14acbaf4_777d5776, 0xf145b6be_ccdea195, 0xdabf2ac8_201752fc, 0x24c3c94d_f9c8d3f6,
    0xbb6e2924_f03912ea, 0x0ce26c0b_95c980d9, 0xa49cd132_bfbf7cc4, 0xe99d662a_f4243939,
    0x27e6ad78_91165c3f, 0x8535f040_b9744ff1, 0x54b3f4fa_5f40d873, 0x72b12c32_127fed2b,
    0xee954d3c_7b411f47, 0x9a85ac90_9a24eaa1, 0x70ac4cd9_f04f21f5, 0xf9b89d3e_99a075c2,
    0x87b3e2b2_b5c907b1, 0xa366e5b8_c54f48b8, 0xae4a9346_cc3f7cf2, 0x1920c04d_47267bbd,
    0x87bf02c6_b49e2ae9, 0x092237ac_237f3859, 0xff07f64e_f8ed14d0, 0x8de8dca9_f03cc54e,
    0x9c163326_4db49c89, 0xb3f22c3d_0b0b38ed, 0x390e5fb4_4d01144b, 0x5bfea5b4_712768e9,
    0x1e103291_1fa78984, 0x9a74acb9_64e78cb3, 0x4f80f7a0_35dafb04, 0x6304d09a_0b3738c4,
    0x2171e646_83023a08, 0x5b9b63eb_9ceff80c, 0x506aacf4_89889342, 0x1881afc9_a3a701d6,
    0x65030804_40750644, 0xdfd39533_9cdbf4a7, 0xef927dbc_f00c20f2, 0x7b32f7d1_e03680ec,
    0xb9fd7620_e7316243, 0x05a7e8a5_7db91b77, 0xb5889c6e_15630a75, 0x4a750a09_ce9573f7,
    0xcf464cec_899a2f8a, 0xf538639c_e705b824, 0x3c79a0ff_5580ef7f, 0xede6c87f_8477609d,
    0x799e81f0_5bc93f31, 0x86536b8c_f3428a8c, 0x97d7374c_60087b73, 0xa246637c_ff328532,
    0x043fcae6_0cc0eba0, 0x920e4495_35dd359e, 0x70eb093b_15b290cc, 0x73a19219_16591cbd,
    0x56436c9f_e1a1aa8d, 0xefac4b70_633b8f81, 0xbb215798_d45df7af, 0x45f20042_f24f1768,
    0x930f80f4_e8eb7462, 0xff6712ff_cfd75ea1, 0xae623fd6_7468aa70, 0xdd2c5bc8_4bc8d8fc,
    0x7eed120d_54cf2dd9, 0x22fe5454_01165f1c, 0xc91800e9_8fb99929, 0x808bd68e_6ac10365,
    0xdec46814_5b7605f6, 0x1bede3a3_aef53302, 0x43539603_d6c55602, 0xaa969b5c_691ccb7a,
    0xa87832d3_92efee56, 0x65942c7b_3c7e11ae, 0xded2d633_cad004f6, 0x21f08570_f420e565,
    0xb415938d_7da94e3c, 0x91b859e5_9ecb6350, 0x10cff333_e0ed804a, 0x28aed140_be0bb7dd,
    0xc5cc1d89_724fa456, 0x5648f680_f11a2741, 0x2d255069_f0b7dab3, 0x9bc5a38e_f729abd4,
    0xef2f0543_08f6a2bc, 0xaf2042f5_cc5c2858, 0x480412ba_b7f5be2a, 0xaef3af4a_563dfe43,
    0x19afe59a_e451497f, 0x52593803_dff1e840, 0xf4f076e6_5f2ce6f0, 0x11379625_747d5af3,
    0xbce5d224_8682c115, 0x9da4243d_e836994f, 0x066f70b3_3fe09017, 0x4dc4de18_9b671a1c,
    0x51039ab7_712457c3, 0xc07a3f80_c31fb4b4, 0xb46ee9c5_e64a6e7c, 0xb3819a42_abe61c87,
    0x21a00793_3a522a20, 0x2df16f76_1598aa4f, 0x763c4a13_71b368fd, 0xf793c467_02e086a0,
    0xd7288e01_2aeb8d31, 0xde336a2a_4bc1c44b, 0x0bf692b3_8d079f23, 0x2c604a7a_177326b3,
    0x4850e73e_03eb6064, 0xcfc447f1_e53c8e1b, 0xb05ca3f5_64268d99, 0x9ae182c8_bc9474e8,
    0xa4fc4bd4_fc5558ca, 0xe755178d_58fc4e76, 0x69b97db1_a4c03dfe, 0xf9b5b7c4_acc67c96,
    0xfc6a82d6_4b8655fb, 0x9c684cb6_c4d24417, 0x8ec97d29_17456ed0, 0x6703df9d_2924e97e,
    0xc547f57e_42a7444e, 0x78e37644_e7cad29e, 0xfe9a44e9_362f05fa, 0x08bd35cc_38336615,
    0x9315e5eb_3a129ace, 0x94061b87_1e04df75, 0xdf1d9f9d_784ba010, 0x3bba57b6_8871b59d,
    0xd2b7adee_ded1f73f, 0xf7a255d8_3bc373f8, 0xd7f4f244_8c0ceb81, 0xd95be88c_d210ffa7,
    0x336f52f8_ff4728e7, 0xa74049da_c312ac71, 0xa2f61bb6_e437fdb5, 0x4f2a5cb0_7f6a35b3,
    0x87d380bd_a5bf7859, 0x16b9f7e0_6c453a21, 0x7ba2484c_8a0fd54e, 0xf3a678ca_d9a2e38c,
    0x39b0bf7d_de437ba2, 0xfcaf55c1_bf8a4424, 0x18fcf680_573fa594, 0x4c0563b8_9f495ac3,
    0x40e08793_1a00930d, 0x8cffa941_2eb642c1, 0x68ca3905_3261169f, 0x7a1ee967_d27579e2,
    0x9d1d60e5_076f5b6f, 0x3810e399_b6f65ba2, 0x32095b6d_4ab5f9b1, 0x35cab621_09dd038a,
    0xa90b2449_9fcfafb1, 0x77a225a0_7cc2c6bd, 0x513e5e63_4c70e331, 0x4361c0ca_3f692f12,
    0xd941aca4_4b20a45b, 0x528f7c86_02c5807b, 0x52ab92be_b9613989, 0x9d1dfa2e_fc557f73,
    0x722ff175_f572c348, 0x1d1260a5_1107fe97, 0x7a249a57_ec0c9ba2, 0x04208fe9_e8f7f2d6,
    0x5a110c60_58b920a0, 0x0cd9a497_658a5698, 0x56fd23c8_f9715a4c, 0x284c847b_9d887aae,
    0x04feabfb_bdb619cb, 0x742e1e65_1c60ba83, 0x9a9632e6_5904ad3c, 0x881b82a1_3b51b9e2,
    0x506e6744_cd974924, 0xb0183db5_6ffc6a79, 0x0ed9b915_c66ed37e, 0x5e11e86d_5873d484,
    0xf678647e_3519ac6e, 0x1b85d488_d0f20cc5, 0xdab9fe65_25d89021, 0x0d151d86_adb73615,
    0xa865a54e_dcc0f019, 0x93c42566_aef98ffb, 0x99e7afea_be000731, 0x48cbff08_6ddf285a,
    0x7f9b6af1_ebf78baf, 0x58627e1a_149bba21, 0x2cd16e2a_bd791e33, 0xd363eff5_f0977996,
    0x0ce2a38c_344a6eed, 0x1a804aad_b9cfa741, 0x907f3042_1d78c5de, 0x501f65ed_b3034d07,
    0x37624ae5_a48fa6e9, 0x957baf61_700cff4e, 0x3a6c2793_4e31188a, 0xd4950353_6abca345,
    0x088e0495_89c432e0, 0xf943aee7_febf21b8, 0x6c3b8e3e_336139d3, 0x364f6ffa_464ee52e,
    0xd60f6dce_dc314222, 0x56963b0d_ca418fc0, 0x16f50edf_91e513af, 0xef195591_4b609f93,
    0x565601c0_364e3228, 0xecb53939_887e8175, 0xbac7a9a1_8531294b, 0xb344c470_397bba52,
    0x65d34954_daf3cebd, 0xb4b81b3f_a97511e2, 0xb4220611_93d6f6a7, 0x07158240_1c38434d,
    0x7a13f18b_bedc4ff5, 0xbc4097b1_16c524d2, 0x59b97885_e2f2ea28, 0x99170a5d_c3115544,
    0x6f423357_e7c6a9f9, 0x325928ee_6e6f8794, 0xd0e43662_28b03343, 0x565c31f7_de89ea27,
    0x30f56114_84119414, 0xd873db39_1292ed4f, 0x7bd94e1d_8e17debc, 0xc7d9f168_64a76e94,
    0x947ae053_ee56e63c, 0xc8c93882_f9475f5f, 0x3a9bf55b_a91f81ca, 0xd9a11fbb_3d9808e4,
    0x0fd22063_edc29fca, 0xb3f256d8_aca0b0b9, 0xb03031a8_b4516e84, 0x35dd37d5_871448af,
    0xe9f6082b_05542e4e, 0xebfafa33_d7254b59, 0x9255abb5_0d532280, 0xb9ab4ce5_7f2d34f3,
    0x693501d6_28297551, 0xc62c58f9_7dd949bf, 0xcd454f8f_19c5126a, 0xbbe83f4e_cc2bdecb,
    0xdc842b7e_2819e230, 0xba89142e_007503b8, 0xa3bc941d_0a5061cb, 0xe9f6760e_32cd8021,
    0x09c7e552_bc76492f, 0x852f5493_4da55cc9, 0x8107fccf_064fcf56, 0x098954d5_1fff6580,
    0x23b70edb_1955c4bf, 0xc330de42_6430f69d, 0x4715ed43_e8a45c0a, 0xa8d7e4da_b780a08d,
    0x0572b974_f03ce0bb, 0xb57d2e98_5e1419c7, 0xe8d9ecbe_2cf3d73f, 0x2fe4b171_70e59750,
    0x11317ba8_7905e790, 0x7fbf21ec_8a1f45ec, 0x1725cabf_cb045b00, 0x964e915c_d5e2b207,
    0x3e2b8bcb_f016d66d, 0xbe7444e3_9328a0ac, 0xf85b2b4f_bcde44b7, 0x49353fea_39ba63b1,
    0x1dd01aaf_cd53486a, 0x1fca8a92_fd719f85, 0xfc7c95d8_27357afa, 0x18a6a990_c8b35ebd,
    0xcccb7005_c6b9c28d, 0x3bdbb92c_43b17f26, 0xaa70b5b4_f89695a2, 0xe94c39a5_4a98307f,
    0xb7a0b174_cff6f36e, 0xd4dba847_29af48ad, 0x2e18bc1a_d9704a68, 0x2de0966d_af2f8b1c,
    0xb9c11d5b_1e43a07e, 0x64972d68_dee33360, 0x94628d38_d0c20584, 0xdbc0d2b6_ab90a559,
    0xd2733c43_35c6a72f, 0x7e75d99d_94a70f4d, 0x6ced1983_376fa72b, 0x97fcaacb_f030bc24,
    0x7b77497b_32503b12, 0x8547eddf_b81ccb94, 0x79999cdf_f70902cb, 0xcffe1939_438e9b24,
    0x829626e3_892d95d7, 0x92fae242_91f2b3f1, 0x63e22c14_7b9c3403, 0xc678b6d8_60284a1c,
    0x58738888_50659ae7, 0x0981dcd2_96a8736d, 0x9f65789a_6509a440, 0x9ff38fed_72e9052f,
    0xe479ee5b_9930578c, 0xe7f28ecd_2d49eecd, 0x56c074a5_81ea17fe, 0x5544f7d7_74b14aef,
    0x7b3f0195_fc6f290f, 0x12153635_b2c0cf57, 0x7f5126db_ba5e0ca7, 0x7a76956c_3eafb413,
    0x3d5774a1_1d31ab39, 0x8a1b0838_21f40cb4, 0x7b4a38e3_2537df62, 0x95011364_6d1d6e03,
    0x4da8979a_0041e8a9, 0x3bc36e07_8f7515d7, 0x5d0a12f2_7ad310d1, 0x7f9d1a2e_1ebe1327,
    0xda3a361b_1c5157b1, 0xdcdd7d20_903d0c25, 0x36833336_d068f707, 0xce68341f_79893389,
    0xab909016_8dd05f34, 0x43954b32_52dc25e5, 0xb438c2b6_7f98e5e9, 0x10dcd78e_3851a492,
    0xdbc27ab5_447822bf, 0x9b3cdb65_f82ca382, 0xb67b7896_167b4c84, 0xbfced1b0_048eac50,
    0xa9119b60_369ffebd, 0x1fff7ac8_0904bf45, 0xac12fb17_1817eee7, 0xaf08da91_77dda93d,
    0x1b0cab93_6e65c744, 0xb559eb1d_04e5e932, 0xc37b45b3_f8d6f2ba, 0xc3a9dc22_8caac9e9,
    0xf3b8b667_5a6507ff, 0x9fc477de_4ed681da, 0x67378d8e_ccef96cb, 0x6dd856d9_4d259236,
    0xa319ce15_b0b4db31, 0x07397375_1f12dd5e, 0x8a8e849e_b32781a5, 0xe1925c71_285279f5,
    0x74c04bf1_790c0efe, 0x4dda4815_3c94938a, 0x9d266d6a_1cc0542c, 0x7440fb81_6508c4fe,
    0x13328503_df48229f, 0xd6bf7bae_e43cac40, 0x4838d65f_6ef6748f, 0x1e152328_f3318dea,
    0x8f8419a3_48f296bf, 0x72c8834a_5957b511, 0xd7a023a7_3260b45c, 0x94ebc8ab_cfb56dae,
    0x9fc10d0f_989993e0, 0xde68a235_5b93cae6, 0xa44cfe79_ae538bbe, 0x9d1d84fc_ce371425,
    0x51d2b1ab_2ddfb636, 0x2fd7e4b9_e72cd38c, 0x65ca5b96_b7552210, 0xdd69a0d8_ab3b546d,
    0x604d51b2_5fbf70e2, 0x73aa8a56_4fb7ac9e, 0x1a8c1e99_2b941148, 0xaac40a27_03d9bea0,
    0x764dbeae_7fa4f3a6, 0x1e99b96e_70a9be8b, 0x2c5e9deb_57ef4743, 0x3a938fee_32d29981,
    0x26e6db8f_fdf5adfe, 0x469356c5_04ec9f9d, 0xc8763c5b_08d1908c, 0x3f6c6af8_59d80055,
    0x7f7cc394_20a3a545, 0x9bfb227e_bdf4c5ce, 0x89039d79_d6fc5c5c, 0x8fe88b57_305e2ab6,
    0xa09e8c8c_35ab96de, 0xfa7e3939_83325753, 0xd6b6d0ec_c617c699, 0xdfea21ea_9e7557e3,
    0xb67c1fa4_81680af8, 0xca1e3785_a9e724e5, 0x1cfc8bed_0d681639, 0xd18d8549_d140caea,
    0x4ed0fe7e_9dc91335, 0xe4dbf063_4473f5d2, 0x1761f93a_44d5aefe, 0x53898e4c_3910da55,
    0x734de818_1f6ec39a, 0x2680b122_baa28d97, 0x298af231_c85bafab, 0x7983eed3_740847d5,
    0x66c1a2a1_a60cd889, 0x9e17e496_42a3e4c1, 0xedb454e7_badc0805, 0x50b704ca_b602c329,
    0x4cc317fb_9cddd023, 0x66b4835d_9eafea22, 0x219b97e2_6ffc81bd, 0x261e4e4c_0a333a9d,
    0x1fe2cca7_6517db90, 0xd7504dfa_8816edbb, 0xb9571fa0_4dc089c8, 0x1ddc0325_259b27de,
    0xcf3f4688_801eb9aa, 0xf4f5d05c_10cab243, 0x38b6525c_21a42b0e, 0x36f60e2b_a4fa6800,
    0xeb359380_3173e0ce, 0x9c4cd625_7c5a3603, 0xaf0c317d_32adaa8a, 0x258e5a80_c7204c4b,
    0x8b889d62_4d44885d, 0xf4d14597_e660f855, 0xd4347f66_ec8941c3, 0xe699ed85_b0dfb40d,
    0x2472f620_7c2d0484, 0xc2a1e7b5_b459aeb5, 0xab4f6451_cc1d45ec, 0x63767572_ae3d6174,
    0xa59e0bd1_01731a28, 0x116d0016_cb948f09, 0x2cf9c8ca_052f6e9f, 0x0b090a75_60a968e3,
    0xabeeddb2_dde06ff1, 0x58efc10b_06a2068d, 0xc6e57a78_fbd986e0, 0x2eab8ca6_3ce802d7,
    0x14a19564_0116f336, 0x7c0828dd_624ec390, 0xd74bbe77_e6116ac7, 0x804456af_10f5fb53,
    0xebe9ea2a_df4321c7, 0x03219a39_ee587a30, 0x49787fef_17af9924, 0xa1e9300c_d8520548,
    0x5b45e522_e4b1b4ef, 0xb49c3b39_95091a36, 0xd4490ad5_26f14431, 0x12a8f216_af9418c2,
    0x001f837c_c7350524, 0x1877b51e_57a764d5, 0xa2853b80_f17f58ee, 0x993e1de7_2d36d310,
    0xb3598080_ce64a656, 0x252f59cf_0d9f04bb, 0xd23c8e17_6d113600, 0x1bda0492_e7e4586e,
    0x21e0bd50_26c619bf, 0x3b097ada_f088f94e, 0x8d14dedb_30be846e, 0xf95cffa2_3af5f6f4,
    0x38717007_61b3f743, 0xca672b91_e9e4fa16, 0x64c8e531_bff53b55, 0x241260ed_4ad1e87d,
    0x106c09b9_72d2e822, 0x7fba1954_10e5ca30, 0x7884d9bc_6cb569d8, 0x0647dfed_cd894a29,
    0x63573ff0_3e224774, 0x4fc8e956_0f91b123, 0x1db956e4_50275779, 0xb8d91274_b9e9d4fb,
    0xa2ebee47_e2fbfce1, 0xd9f1f30c_cd97fb09, 0xefed53d7_5fd64e6b, 0x2e6d02c3_6017f67f,
    0xa9aa4d20_db084e9b, 0xb64be8d8_b25396c1, 0x70cb6af7_c2d5bcf0, 0x98f076a4_f7a2322e,
    0xbf844708_05e69b5f, 0x94c3251f_06f90cf3, 0x3e003e61_6a6591e9, 0xb925a6cd_0421aff3,
    0x61bdd130_7c66e300, 0xbf8d5108_e27e0d48, 0x240ab57a_8b888b20, 0xfc87614b_af287e07,
    0xef02cdd0_6ffdb432, 0xa1082c04_66df6c0a, 0x8215e577_001332c8, 0xd39bb9c3_a48db6cf,
    0x27382596_34305c14, 0x61cf4f94_c97df93d, 0x1b6baca2_ae4e125b, 0x758f450c_88572e0b,
    0x959f587d_507a8359, 0xb063e962_e045f54d, 0x60e8ed72_c0dff5d1, 0x7b649785_55326f9f,
    0xfd080d23_6da814ba, 0x8c90fd9b_083f4558, 0x106f72fe_81e2c590, 0x7976033a_39f7d952,
    0xa4ec0132_764ca04b, 0x733ea705_fae4fa77, 0xb4d8f77b_c3e56167, 0x9e21f4f9_03b33fd9,
    0x9d765e41_9fb69f6d, 0xd30c088b_a61ea5ef, 0x5d94337f_bfaf7f5b, 0x1a4e4822_eb4d7a59,
    0x6ffe73e8_1b637fb3, 0xddf957bc_36d8b9ca, 0x64d0e29e_ea8838b3, 0x08dd9bdf_d96b9f63,
    0x087e79e5_a57d1d13, 0xe328e230_e3e2b3fb, 0x1c2559e3_0f0946be, 0x720bf5f2_6f4d2eaa,
    0xb0774d26_1cc609db, 0x443f64ec_5a371195, 0x4112cf68_649a260e, 0xd813f2fa_b7f5c5ca,
    0x660d3257_380841ee, 0x59ac2c78_73f910a3, 0xe8469638_77671a17, 0x93b633ab_fa3469f8,
    0xc0c0f5a6_0ef4cdcf, 0xcaf21ecd_4377b28c, 0x57277707_199b8175, 0x506c11b9_d90e8b1d,
    0xd83cc268_7a19255f, 0x4a29c646_5a314cd1, 0xed2df212_16235097, 0xb5635c95_ff7296e2,
    0x22af003a_b672e811, 0x52e76259_6bf68235, 0x9aeba33a_c6ecc6b0, 0x944f6de0_9134dfb6,
    0x6c47bec8_83a7de39, 0x6ad047c4_30a12104, 0xa5b1cfdb_a0ab4067, 0x7c45d833_aff07862,
    0x5092ef95_0a16da0b, 0x9338e69c_052b8e7b, 0x455a4b4c_fe30e3f5, 0x6b02e631_95ad0cf8,
    0x6b17b224_bad6bf27, 0xd1e0ccd2_5bb9c169, 0xde0c89a5_56b9ae70, 0x50065e53_5a213cf6,
    0x9c1169fa_2777b874, 0x78edefd6_94af1eed, 0x6dc93d95_26a50e68, 0xee97f453_f06791ed,
    0x32ab0edb_696703d3, 0x3a6853c7_e70757a7, 0x31865ced_6120f37d, 0x67fef95d_92607890,
    0x1f2b1d1f_15f6dc9c, 0xb69e38a8_965c6b65, 0xaa9119ff_184cccf4, 0xf43c7328_73f24c13,
    0xfb4a3d79_4a9a80d2, 0x3550c232_1fd6109c, 0x371f77e7_6bb8417e, 0x6bfa9aae_5ec05779,
    0xcd04f3ff_001a4778, 0xe3273522_064480ca, 0x9f91508b_ffcfc14a, 0x049a7f41_061a9e60,
    0xfcb6be43_a9f2fe9b, 0x08de8a1c_7797da9b, 0x8f9887e6_078735a1, 0xb5b4071d_bfc73a66,
    0x230e343d_fba08d33, 0x43ed7f5a_0fae657d, 0x3a88a0fb_bcb05c63, 0x21874b8b_4d2dbc4f,
    0x1bdea12e_35f6a8c9, 0x53c065c6_c8e63528, 0xe34a1d25_0e7a8d6b, 0xd6b04d3b_7651dd7e,
    0x5e90277e_7cb39e2d, 0x2c046f22_062dc67d, 0xb10bb459_132d0a26, 0x3fa9ddfb_67e2f199,
    0x0e09b88e_1914f7af, 0x10e8b35a_f3eeab37, 0x9eedeca8_e272b933, 0xd4c718bc_4ae8ae5f,
    0x81536d60_1170fc20, 0x91b534f8_85818a06, 0xec8177f8_3f900978, 0x190e714f_ada5156e,
    0xb592bf39_b0364963, 0x89c350c8_93ae7dc1, 0xac042e70_f8b383f2, 0xb49b52e5_87a1ee60,
    0xfb152fe3_ff26da89, 0x3e666e6f_69ae2c15, 0x3b544ebe_544c19f9, 0xe805a1e2_90cf2456,
    0x24b33c9d_7ed25117, 0xe7473342_7b72f0c1, 0x0a804d18_b7097475, 0x57e3306d_881edb4f,
    0x4ae7d6a3_6eb5dbcb, 0x2d8d5432_157064c8, 0xd1e649de_1e7f268b, 0x8a328a1c_edfe552c,
    0x07a3aec7_9624c7da, 0x84547ddc_3e203c94, 0x990a98fd_5071d263, 0x1a4ff126_16eefc89,
    0xf6f7fd14_31714200, 0x30c05b1b_a332f41c, 0x8d2636b8_1555a786, 0x46c9feb5_5d120902,
    0xccec0a73_b49c9921, 0x4e9d2827_355fc492, 0x19ebb029_435dcb0f, 0x4659d2b7_43848a2c,
    0x963ef2c9_6b33be31, 0x74f85198_b05a2e7d, 0x5a0f544d_d2b1fb18, 0x03727073_c2e134b1,
    0xc7f6aa2d_e59aea61, 0x352787ba_a0d7c22f, 0x9853eab6_3b5e0b35, 0xabbdcdd7_ed5c0860,
    0xcf05daf5_ac8d77b0, 0x49cad48c_ebf4a71e, 0x7a4c10ec_2158c4a6, 0xd9e92aa2_46bf719e,
    0x13ae978d_09fe5557, 0x730499af_921549ff, 0x4e4b705b_92903ba4, 0xff577222_c14f0a3a,
    0x55b6344c_f97aafae, 0xb862225b_055b6960, 0xcac09afb_ddd2cdb4, 0xdaf8e982_9fe96b5f,
    0xb5fdfc5d_3132c498, 0x310cb380_db6f7503, 0xe87fbb46_217a360e, 0x2102ae46_6ebb1148,
    0xf8549e1a_3aa5e00d, 0x07a69afd_cc42261a, 0xc4c118bf_e78feaae, 0xf9f4892e_d96bd438,
    0x1af3dbe2_5d8f45da, 0xf5b4b0b0_d2deeeb4, 0x962aceef_a82e1c84, 0x046e3eca_af453ce9,
    0xf05d1296_81949a4c, 0x964781ce_734b3c84, 0x9c2ed440_81ce5fbd, 0x522e23f3_925e319e,
    0x177e00f9_fc32f791, 0x2bc60a63_a6f3b3f2, 0x222bbfae_61725606, 0x486289dd_cc3d6780,
    0x7dc7785b_8efdfc80, 0x8af38731_c02ba980, 0x1fab64ea_29a2ddf7, 0xe4d94293_22cd065a,
    0x9da058c6_7844f20c, 0x24c0e332_b70019b0, 0x233003b5_a6cfe6ad, 0xd586bd01_c5c217f6,
    0x5e563788_5f29bc2b, 0x7eba726d_8c94094b, 0x0a56a5f0_bfe39272, 0xd79476a8_4ee20d06,
    0x9e4c1269_baa4bf37, 0x17efee45_b0dee640, 0x1d95b0a5_fcf90bc6, 0x93cbe0b6_99c2585d,
    0x65fa4f22_7a2b6d79, 0xd5f9e858_292504d5, 0xc2b5a03f_71471a6f, 0x59300222_b4561e00,
    0xce2f8642_ca0712dc, 0x7ca9723f_bb2e8988, 0x27853383_47f2ba08, 0xc61bb3a1_41e50e8c,
    0x150f361d_ab9dec26, 0x9f6a419d_382595f4, 0x64a53dc9_24fe7ac9, 0x142de49f_ff7a7c3d,
    0x0c335248_857fa9e7, 0x0a9c32d5_eae45305, 0xe6c42178_c4bbb92e, 0x71f1ce24_90d20b07,
    0xf1bcc3d2_75afe51a, 0xe728e8c8_3c334074, 0x96fbf83a_12884624, 0x81a1549f_d6573da5,
    0x5fa7867c_af35e149, 0x56986e2e_f3ed091b, 0x917f1dd5_f8886c61, 0xd20d8c88_c8ffe65f,
    0x31d71dce_64b2c310, 0xf165b587_df898190, 0xa57e6339_dd2cf3a0, 0x1ef6e6db_b1961ec9,
    0x70cc73d9_0bc26e24, 0xe21a6b35_df0c3ad7, 0x003a93d8_b2806962, 0x1c99ded3_3cb890a1,
    0xcf3145de_0add4289, 0xd0e4427a_5514fb72, 0x77c621cc_9fb3a483, 0x67a34dac_4356550b,
    0xf8d626aa_af278509,
];

#[cfg(test)]
mod tests {
    use super::RANDOM64;

    fn parse_keys(text: &str) -> Vec<u64> {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| u64::from_str_radix(l, 16).expect("hex key"))
            .collect()
    }

    /// The copy in tests/fixtures is always there, so every checkout checks all 781 keys.
    #[test]
    fn keys_match_the_reference_fixture() {
        let text = include_str!("../../../../tests/fixtures/polyglot-random64.txt");
        assert_eq!(parse_keys(text).as_slice(), RANDOM64.as_slice());
    }

    #[test]
    fn keys_match_the_shared_reference_file() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/polyglot-random64.txt"
        );
        let Ok(text) = std::fs::read_to_string(path) else {
            println!("skipped: {path} is absent (a checkout without ../shared)");
            return;
        };
        assert_eq!(parse_keys(&text).as_slice(), RANDOM64.as_slice());
    }
}

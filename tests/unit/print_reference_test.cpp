// Every repr example from /work/shared/reference/torch_reference_values.md (PyTorch 1.13), expected
// text copied verbatim. Sections: "Printing", the "repr:" lines of "RNG outputs" (tensors rebuilt
// from the stored hex values), and "C++ std::cout << tensor format".
// Not covered here: the complex example (no complex dtype) and the grad_fn= examples (no autograd yet).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "ctorch/ctorch.h"

using namespace ctorch;

namespace {
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

// ---- reference section "Printing" (generated from torch_reference_values.md, verbatim) ----

// torch.ones(2,3)
TEST(PrintReference, OnesTwoByThree) {
  EXPECT_EQ(ones({2, 3}).repr(),
      "tensor([[1., 1., 1.],\n"
      "        [1., 1., 1.]])");
}

// torch.manual_seed(0); torch.rand(3,4)
TEST(PrintReference, RandThreeByFour) {
  EXPECT_EQ(tensor({{0.4963, 0.7682, 0.0885, 0.1320}, {0.3074, 0.6341, 0.4901, 0.8964}, {0.4556, 0.6323, 0.3489, 0.4017}}).repr(),
      "tensor([[0.4963, 0.7682, 0.0885, 0.1320],\n"
      "        [0.3074, 0.6341, 0.4901, 0.8964],\n"
      "        [0.4556, 0.6323, 0.3489, 0.4017]])");
}

// torch.tensor([[1,4,7],[3,6,9],[2,5,8]])
TEST(PrintReference, IntMatrix) {
  EXPECT_EQ(tensor({{1, 4, 7}, {3, 6, 9}, {2, 5, 8}}).repr(),
      "tensor([[1, 4, 7],\n"
      "        [3, 6, 9],\n"
      "        [2, 5, 8]])");
}

// torch.tensor([1.5e10, 1.0])
TEST(PrintReference, SciLargeRatio) {
  EXPECT_EQ(tensor({1.5e10, 1.0}).repr(),
      "tensor([1.5000e+10, 1.0000e+00])");
}

// torch.arange(100.)
TEST(PrintReference, Arange100WrapsLines) {
  EXPECT_EQ(arange(100.).repr(),
      "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11., 12., 13.,\n"
      "        14., 15., 16., 17., 18., 19., 20., 21., 22., 23., 24., 25., 26., 27.,\n"
      "        28., 29., 30., 31., 32., 33., 34., 35., 36., 37., 38., 39., 40., 41.,\n"
      "        42., 43., 44., 45., 46., 47., 48., 49., 50., 51., 52., 53., 54., 55.,\n"
      "        56., 57., 58., 59., 60., 61., 62., 63., 64., 65., 66., 67., 68., 69.,\n"
      "        70., 71., 72., 73., 74., 75., 76., 77., 78., 79., 80., 81., 82., 83.,\n"
      "        84., 85., 86., 87., 88., 89., 90., 91., 92., 93., 94., 95., 96., 97.,\n"
      "        98., 99.])");
}

// torch.tensor([1.0, 1000.0])
TEST(PrintReference, RatioExactly1000) {
  EXPECT_EQ(tensor({1.0, 1000.0}).repr(),
      "tensor([   1., 1000.])");
}

// torch.tensor([1.0, 1001.0])
TEST(PrintReference, RatioAbove1000) {
  EXPECT_EQ(tensor({1.0, 1001.0}).repr(),
      "tensor([1.0000e+00, 1.0010e+03])");
}

// torch.tensor([0.5, 1000.0])
TEST(PrintReference, NonIntRatio2000) {
  EXPECT_EQ(tensor({0.5, 1000.0}).repr(),
      "tensor([5.0000e-01, 1.0000e+03])");
}

// torch.tensor([1e8])
TEST(PrintReference, ExactlyOneE8) {
  EXPECT_EQ(tensor({1e8}).repr(),
      "tensor([100000000.])");
}

// torch.tensor([1e8 + 8.0])
TEST(PrintReference, AboveOneE8) {
  EXPECT_EQ(tensor({1e8 + 8.0}).repr(),
      "tensor([1.0000e+08])");
}

// torch.tensor([1.5e8, 2.5])
TEST(PrintReference, NonIntAboveOneE8) {
  EXPECT_EQ(tensor({1.5e8, 2.5}).repr(),
      "tensor([1.5000e+08, 2.5000e+00])");
}

// torch.tensor([1e-4, 1.0])
TEST(PrintReference, OneEMinus4AsFloat32) {
  EXPECT_EQ(tensor({1e-4, 1.0}).repr(),
      "tensor([1.0000e-04, 1.0000e+00])");
}

// torch.tensor([9e-5, 1.0])
TEST(PrintReference, NineEMinus5) {
  EXPECT_EQ(tensor({9e-5, 1.0}).repr(),
      "tensor([9.0000e-05, 1.0000e+00])");
}

// torch.tensor([1e-5])
TEST(PrintReference, OneEMinus5) {
  EXPECT_EQ(tensor({1e-5}).repr(),
      "tensor([1.0000e-05])");
}

// torch.tensor([0.1, 0.25, 3.0])
TEST(PrintReference, FixedPoint) {
  EXPECT_EQ(tensor({0.1, 0.25, 3.0}).repr(),
      "tensor([0.1000, 0.2500, 3.0000])");
}

// torch.tensor([1.0, 2.0, 3.0])
TEST(PrintReference, IntegralFloats) {
  EXPECT_EQ(tensor({1.0, 2.0, 3.0}).repr(),
      "tensor([1., 2., 3.])");
}

// torch.tensor([1.0, -2.0, 30.0])
TEST(PrintReference, IntegralFloatsSigned) {
  EXPECT_EQ(tensor({1.0, -2.0, 30.0}).repr(),
      "tensor([ 1., -2., 30.])");
}

// torch.tensor([123456.0, 1.0])
TEST(PrintReference, IntegralRatioAbove1000) {
  EXPECT_EQ(tensor({123456.0, 1.0}).repr(),
      "tensor([1.2346e+05, 1.0000e+00])");
}

// torch.tensor([1.123456789, -0.000123])
TEST(PrintReference, SciWithSmallNegative) {
  EXPECT_EQ(tensor({1.123456789, -0.000123}).repr(),
      "tensor([ 1.1235e+00, -1.2300e-04])");
}

// torch.tensor([-0.0, 0.0])
TEST(PrintReference, NegativeZero) {
  EXPECT_EQ(tensor({-0.0, 0.0}).repr(),
      "tensor([-0., 0.])");
}

// torch.tensor([float('nan'), float('inf'), -float('inf'), 1.5])
TEST(PrintReference, NanInf) {
  EXPECT_EQ(tensor({kNan, kInf, -kInf, 1.5}).repr(),
      "tensor([   nan,    inf,   -inf, 1.5000])");
}

// torch.tensor([float('nan'), 1e10])
TEST(PrintReference, NanWithSci) {
  EXPECT_EQ(tensor({kNan, 1e10}).repr(),
      "tensor([       nan, 1.0000e+10])");
}

// torch.zeros(3)
TEST(PrintReference, Zeros) {
  EXPECT_EQ(zeros({3}).repr(),
      "tensor([0., 0., 0.])");
}

// torch.linspace(0, 1, 20)
TEST(PrintReference, LinspaceWraps) {
  EXPECT_EQ(linspace(0, 1, 20).repr(),
      "tensor([0.0000, 0.0526, 0.1053, 0.1579, 0.2105, 0.2632, 0.3158, 0.3684, 0.4211,\n"
      "        0.4737, 0.5263, 0.5789, 0.6316, 0.6842, 0.7368, 0.7895, 0.8421, 0.8947,\n"
      "        0.9474, 1.0000])");
}

// torch.arange(24.).reshape(2,3,4)
TEST(PrintReference, ThreeDim) {
  EXPECT_EQ(arange(24.).as_strided({2, 3, 4}, {12, 4, 1}, 0).repr(),
      "tensor([[[ 0.,  1.,  2.,  3.],\n"
      "         [ 4.,  5.,  6.,  7.],\n"
      "         [ 8.,  9., 10., 11.]],\n"
      "\n"
      "        [[12., 13., 14., 15.],\n"
      "         [16., 17., 18., 19.],\n"
      "         [20., 21., 22., 23.]]])");
}

// torch.tensor([1.5, 2.0], dtype=torch.float64)
TEST(PrintReference, Float64Suffix) {
  EXPECT_EQ(tensor({1.5, 2.0}, dtype(kFloat64)).repr(),
      "tensor([1.5000, 2.0000], dtype=torch.float64)");
}

// torch.tensor([1.5, 2.0], dtype=torch.float16)
TEST(PrintReference, Float16Suffix) {
  EXPECT_EQ(tensor({1.5, 2.0}, dtype(kFloat16)).repr(),
      "tensor([1.5000, 2.0000], dtype=torch.float16)");
}

// torch.tensor([1.5, 2.0], dtype=torch.bfloat16)
TEST(PrintReference, BFloat16Suffix) {
  EXPECT_EQ(tensor({1.5, 2.0}, dtype(kBFloat16)).repr(),
      "tensor([1.5000, 2.0000], dtype=torch.bfloat16)");
}

// torch.tensor([1, -22, 333])
TEST(PrintReference, Int64Widths) {
  EXPECT_EQ(tensor({1, -22, 333}).repr(),
      "tensor([  1, -22, 333])");
}

// torch.tensor([1, 2, 3], dtype=torch.int32)
TEST(PrintReference, Int32Suffix) {
  EXPECT_EQ(tensor({1, 2, 3}, dtype(kInt32)).repr(),
      "tensor([1, 2, 3], dtype=torch.int32)");
}

// torch.tensor([1, 2, 3], dtype=torch.uint8)
TEST(PrintReference, UInt8Suffix) {
  EXPECT_EQ(tensor({1, 2, 3}, dtype(kUInt8)).repr(),
      "tensor([1, 2, 3], dtype=torch.uint8)");
}

// torch.tensor([1, 2, 3], dtype=torch.int16)
TEST(PrintReference, Int16Suffix) {
  EXPECT_EQ(tensor({1, 2, 3}, dtype(kInt16)).repr(),
      "tensor([1, 2, 3], dtype=torch.int16)");
}

// torch.tensor([10**12, 1])
TEST(PrintReference, LargeInt64) {
  EXPECT_EQ(tensor({int64_t{1000000000000}, int64_t{1}}).repr(),
      "tensor([1000000000000,             1])");
}

// torch.tensor([True, False, True])
TEST(PrintReference, BoolVector) {
  EXPECT_EQ(tensor({true, false, true}).repr(),
      "tensor([ True, False,  True])");
}

// torch.tensor([[True], [False]])
TEST(PrintReference, BoolColumn) {
  EXPECT_EQ(tensor({{true}, {false}}).repr(),
      "tensor([[ True],\n"
      "        [False]])");
}

// torch.tensor([])
TEST(PrintReference, EmptyFloat) {
  EXPECT_EQ(empty({0}).repr(),
      "tensor([])");
}

// torch.empty(0, 3)
TEST(PrintReference, EmptyZeroByThree) {
  EXPECT_EQ(empty({0, 3}).repr(),
      "tensor([], size=(0, 3))");
}

// torch.zeros(2, 0)
TEST(PrintReference, EmptyTwoByZero) {
  EXPECT_EQ(zeros({2, 0}).repr(),
      "tensor([], size=(2, 0))");
}

// torch.tensor([], dtype=torch.int64)
TEST(PrintReference, EmptyInt64) {
  EXPECT_EQ(empty({0}, dtype(kInt64)).repr(),
      "tensor([], dtype=torch.int64)");
}

// torch.tensor([], dtype=torch.bool)
TEST(PrintReference, EmptyBool) {
  EXPECT_EQ(empty({0}, dtype(kBool)).repr(),
      "tensor([], dtype=torch.bool)");
}

// torch.tensor(3.5)
TEST(PrintReference, ScalarFloat) {
  EXPECT_EQ(tensor(3.5).repr(),
      "tensor(3.5000)");
}

// torch.tensor(3)
TEST(PrintReference, ScalarInt) {
  EXPECT_EQ(tensor(3).repr(),
      "tensor(3)");
}

// torch.tensor(True)
TEST(PrintReference, ScalarBool) {
  EXPECT_EQ(tensor(true).repr(),
      "tensor(True)");
}

// torch.tensor(1e10)
TEST(PrintReference, ScalarSci) {
  EXPECT_EQ(tensor(1e10).repr(),
      "tensor(1.0000e+10)");
}

// torch.tensor(float('nan'))
TEST(PrintReference, ScalarNan) {
  EXPECT_EQ(tensor(kNan).repr(),
      "tensor(nan)");
}

// torch.tensor(2.0, dtype=torch.float64)
TEST(PrintReference, ScalarFloat64) {
  EXPECT_EQ(tensor(2.0, dtype(kFloat64)).repr(),
      "tensor(2., dtype=torch.float64)");
}

// torch.ones(1)
TEST(PrintReference, OneElement) {
  EXPECT_EQ(ones({1}).repr(),
      "tensor([1.])");
}

// torch.ones(2, requires_grad=True)
TEST(PrintReference, RequiresGrad) {
  EXPECT_EQ(ones({2}).requires_grad_(true).repr(),
      "tensor([1., 1.], requires_grad=True)");
}

// torch.arange(1000.)
TEST(PrintReference, Arange1000NotSummarised) {
  EXPECT_EQ(arange(1000.).repr(),
      "tensor([  0.,   1.,   2.,   3.,   4.,   5.,   6.,   7.,   8.,   9.,  10.,  11.,\n"
      "         12.,  13.,  14.,  15.,  16.,  17.,  18.,  19.,  20.,  21.,  22.,  23.,\n"
      "         24.,  25.,  26.,  27.,  28.,  29.,  30.,  31.,  32.,  33.,  34.,  35.,\n"
      "         36.,  37.,  38.,  39.,  40.,  41.,  42.,  43.,  44.,  45.,  46.,  47.,\n"
      "         48.,  49.,  50.,  51.,  52.,  53.,  54.,  55.,  56.,  57.,  58.,  59.,\n"
      "         60.,  61.,  62.,  63.,  64.,  65.,  66.,  67.,  68.,  69.,  70.,  71.,\n"
      "         72.,  73.,  74.,  75.,  76.,  77.,  78.,  79.,  80.,  81.,  82.,  83.,\n"
      "         84.,  85.,  86.,  87.,  88.,  89.,  90.,  91.,  92.,  93.,  94.,  95.,\n"
      "         96.,  97.,  98.,  99., 100., 101., 102., 103., 104., 105., 106., 107.,\n"
      "        108., 109., 110., 111., 112., 113., 114., 115., 116., 117., 118., 119.,\n"
      "        120., 121., 122., 123., 124., 125., 126., 127., 128., 129., 130., 131.,\n"
      "        132., 133., 134., 135., 136., 137., 138., 139., 140., 141., 142., 143.,\n"
      "        144., 145., 146., 147., 148., 149., 150., 151., 152., 153., 154., 155.,\n"
      "        156., 157., 158., 159., 160., 161., 162., 163., 164., 165., 166., 167.,\n"
      "        168., 169., 170., 171., 172., 173., 174., 175., 176., 177., 178., 179.,\n"
      "        180., 181., 182., 183., 184., 185., 186., 187., 188., 189., 190., 191.,\n"
      "        192., 193., 194., 195., 196., 197., 198., 199., 200., 201., 202., 203.,\n"
      "        204., 205., 206., 207., 208., 209., 210., 211., 212., 213., 214., 215.,\n"
      "        216., 217., 218., 219., 220., 221., 222., 223., 224., 225., 226., 227.,\n"
      "        228., 229., 230., 231., 232., 233., 234., 235., 236., 237., 238., 239.,\n"
      "        240., 241., 242., 243., 244., 245., 246., 247., 248., 249., 250., 251.,\n"
      "        252., 253., 254., 255., 256., 257., 258., 259., 260., 261., 262., 263.,\n"
      "        264., 265., 266., 267., 268., 269., 270., 271., 272., 273., 274., 275.,\n"
      "        276., 277., 278., 279., 280., 281., 282., 283., 284., 285., 286., 287.,\n"
      "        288., 289., 290., 291., 292., 293., 294., 295., 296., 297., 298., 299.,\n"
      "        300., 301., 302., 303., 304., 305., 306., 307., 308., 309., 310., 311.,\n"
      "        312., 313., 314., 315., 316., 317., 318., 319., 320., 321., 322., 323.,\n"
      "        324., 325., 326., 327., 328., 329., 330., 331., 332., 333., 334., 335.,\n"
      "        336., 337., 338., 339., 340., 341., 342., 343., 344., 345., 346., 347.,\n"
      "        348., 349., 350., 351., 352., 353., 354., 355., 356., 357., 358., 359.,\n"
      "        360., 361., 362., 363., 364., 365., 366., 367., 368., 369., 370., 371.,\n"
      "        372., 373., 374., 375., 376., 377., 378., 379., 380., 381., 382., 383.,\n"
      "        384., 385., 386., 387., 388., 389., 390., 391., 392., 393., 394., 395.,\n"
      "        396., 397., 398., 399., 400., 401., 402., 403., 404., 405., 406., 407.,\n"
      "        408., 409., 410., 411., 412., 413., 414., 415., 416., 417., 418., 419.,\n"
      "        420., 421., 422., 423., 424., 425., 426., 427., 428., 429., 430., 431.,\n"
      "        432., 433., 434., 435., 436., 437., 438., 439., 440., 441., 442., 443.,\n"
      "        444., 445., 446., 447., 448., 449., 450., 451., 452., 453., 454., 455.,\n"
      "        456., 457., 458., 459., 460., 461., 462., 463., 464., 465., 466., 467.,\n"
      "        468., 469., 470., 471., 472., 473., 474., 475., 476., 477., 478., 479.,\n"
      "        480., 481., 482., 483., 484., 485., 486., 487., 488., 489., 490., 491.,\n"
      "        492., 493., 494., 495., 496., 497., 498., 499., 500., 501., 502., 503.,\n"
      "        504., 505., 506., 507., 508., 509., 510., 511., 512., 513., 514., 515.,\n"
      "        516., 517., 518., 519., 520., 521., 522., 523., 524., 525., 526., 527.,\n"
      "        528., 529., 530., 531., 532., 533., 534., 535., 536., 537., 538., 539.,\n"
      "        540., 541., 542., 543., 544., 545., 546., 547., 548., 549., 550., 551.,\n"
      "        552., 553., 554., 555., 556., 557., 558., 559., 560., 561., 562., 563.,\n"
      "        564., 565., 566., 567., 568., 569., 570., 571., 572., 573., 574., 575.,\n"
      "        576., 577., 578., 579., 580., 581., 582., 583., 584., 585., 586., 587.,\n"
      "        588., 589., 590., 591., 592., 593., 594., 595., 596., 597., 598., 599.,\n"
      "        600., 601., 602., 603., 604., 605., 606., 607., 608., 609., 610., 611.,\n"
      "        612., 613., 614., 615., 616., 617., 618., 619., 620., 621., 622., 623.,\n"
      "        624., 625., 626., 627., 628., 629., 630., 631., 632., 633., 634., 635.,\n"
      "        636., 637., 638., 639., 640., 641., 642., 643., 644., 645., 646., 647.,\n"
      "        648., 649., 650., 651., 652., 653., 654., 655., 656., 657., 658., 659.,\n"
      "        660., 661., 662., 663., 664., 665., 666., 667., 668., 669., 670., 671.,\n"
      "        672., 673., 674., 675., 676., 677., 678., 679., 680., 681., 682., 683.,\n"
      "        684., 685., 686., 687., 688., 689., 690., 691., 692., 693., 694., 695.,\n"
      "        696., 697., 698., 699., 700., 701., 702., 703., 704., 705., 706., 707.,\n"
      "        708., 709., 710., 711., 712., 713., 714., 715., 716., 717., 718., 719.,\n"
      "        720., 721., 722., 723., 724., 725., 726., 727., 728., 729., 730., 731.,\n"
      "        732., 733., 734., 735., 736., 737., 738., 739., 740., 741., 742., 743.,\n"
      "        744., 745., 746., 747., 748., 749., 750., 751., 752., 753., 754., 755.,\n"
      "        756., 757., 758., 759., 760., 761., 762., 763., 764., 765., 766., 767.,\n"
      "        768., 769., 770., 771., 772., 773., 774., 775., 776., 777., 778., 779.,\n"
      "        780., 781., 782., 783., 784., 785., 786., 787., 788., 789., 790., 791.,\n"
      "        792., 793., 794., 795., 796., 797., 798., 799., 800., 801., 802., 803.,\n"
      "        804., 805., 806., 807., 808., 809., 810., 811., 812., 813., 814., 815.,\n"
      "        816., 817., 818., 819., 820., 821., 822., 823., 824., 825., 826., 827.,\n"
      "        828., 829., 830., 831., 832., 833., 834., 835., 836., 837., 838., 839.,\n"
      "        840., 841., 842., 843., 844., 845., 846., 847., 848., 849., 850., 851.,\n"
      "        852., 853., 854., 855., 856., 857., 858., 859., 860., 861., 862., 863.,\n"
      "        864., 865., 866., 867., 868., 869., 870., 871., 872., 873., 874., 875.,\n"
      "        876., 877., 878., 879., 880., 881., 882., 883., 884., 885., 886., 887.,\n"
      "        888., 889., 890., 891., 892., 893., 894., 895., 896., 897., 898., 899.,\n"
      "        900., 901., 902., 903., 904., 905., 906., 907., 908., 909., 910., 911.,\n"
      "        912., 913., 914., 915., 916., 917., 918., 919., 920., 921., 922., 923.,\n"
      "        924., 925., 926., 927., 928., 929., 930., 931., 932., 933., 934., 935.,\n"
      "        936., 937., 938., 939., 940., 941., 942., 943., 944., 945., 946., 947.,\n"
      "        948., 949., 950., 951., 952., 953., 954., 955., 956., 957., 958., 959.,\n"
      "        960., 961., 962., 963., 964., 965., 966., 967., 968., 969., 970., 971.,\n"
      "        972., 973., 974., 975., 976., 977., 978., 979., 980., 981., 982., 983.,\n"
      "        984., 985., 986., 987., 988., 989., 990., 991., 992., 993., 994., 995.,\n"
      "        996., 997., 998., 999.])");
}

// torch.arange(1001.)
TEST(PrintReference, Arange1001Summarised) {
  EXPECT_EQ(arange(1001.).repr(),
      "tensor([   0.,    1.,    2.,  ...,  998.,  999., 1000.])");
}

// torch.arange(1001)
TEST(PrintReference, Arange1001Int64Summarised) {
  EXPECT_EQ(arange(1001).repr(),
      "tensor([   0,    1,    2,  ...,  998,  999, 1000])");
}

// torch.arange(2000.).reshape(2, 1000)
TEST(PrintReference, SummarisedWideRows) {
  EXPECT_EQ(arange(2000.).as_strided({2, 1000}, {1000, 1}, 0).repr(),
      "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 9.9700e+02, 9.9800e+02,\n"
      "         9.9900e+02],\n"
      "        [1.0000e+03, 1.0010e+03, 1.0020e+03,  ..., 1.9970e+03, 1.9980e+03,\n"
      "         1.9990e+03]])");
}

// torch.arange(1100.).reshape(110, 10)
TEST(PrintReference, SummarisedRowsAndColumns) {
  EXPECT_EQ(arange(1100.).as_strided({110, 10}, {10, 1}, 0).repr(),
      "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 7.0000e+00, 8.0000e+00,\n"
      "         9.0000e+00],\n"
      "        [1.0000e+01, 1.1000e+01, 1.2000e+01,  ..., 1.7000e+01, 1.8000e+01,\n"
      "         1.9000e+01],\n"
      "        [2.0000e+01, 2.1000e+01, 2.2000e+01,  ..., 2.7000e+01, 2.8000e+01,\n"
      "         2.9000e+01],\n"
      "        ...,\n"
      "        [1.0700e+03, 1.0710e+03, 1.0720e+03,  ..., 1.0770e+03, 1.0780e+03,\n"
      "         1.0790e+03],\n"
      "        [1.0800e+03, 1.0810e+03, 1.0820e+03,  ..., 1.0870e+03, 1.0880e+03,\n"
      "         1.0890e+03],\n"
      "        [1.0900e+03, 1.0910e+03, 1.0920e+03,  ..., 1.0970e+03, 1.0980e+03,\n"
      "         1.0990e+03]])");
}

// torch.zeros(11, 11, 11)
TEST(PrintReference, SummarisedThreeDim) {
  EXPECT_EQ(zeros({11, 11, 11}).repr(),
      "tensor([[[0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         ...,\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.]],\n"
      "\n"
      "        [[0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         ...,\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.]],\n"
      "\n"
      "        [[0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         ...,\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.]],\n"
      "\n"
      "        ...,\n"
      "\n"
      "        [[0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         ...,\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.]],\n"
      "\n"
      "        [[0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         ...,\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.]],\n"
      "\n"
      "        [[0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         ...,\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.],\n"
      "         [0., 0., 0.,  ..., 0., 0., 0.]]])");
}

// torch.ones(1001, dtype=torch.bool)
TEST(PrintReference, SummarisedBool) {
  EXPECT_EQ(ones({1001}, dtype(kBool)).repr(),
      "tensor([True, True, True,  ..., True, True, True])");
}

// ---- reference section "RNG outputs": repr of the stored values (verbatim) ----

// torch.manual_seed(0); torch.rand(8)
TEST(PrintReference, Rng01) {
  EXPECT_EQ(tensor(std::vector<float>{0x1.fc2ab00000000p-2f, 0x1.89545e0000000p-1f, 0x1.6a67500000000p-4f, 0x1.0e66000000000p-3f, 0x1.3acd0c0000000p-2f, 0x1.44a5f60000000p-1f, 0x1.f5db0c0000000p-2f, 0x1.caface0000000p-1f}, dtype(kFloat32)).repr(),
      "tensor([0.4963, 0.7682, 0.0885, 0.1320, 0.3074, 0.6341, 0.4901, 0.8964])");
}

// torch.manual_seed(0); torch.rand(8, dtype=torch.float64)
TEST(PrintReference, Rng02) {
  EXPECT_EQ(tensor(std::vector<double>{0x1.f0aac97c4aa2fp-1, 0x1.6a675d821ccc0p-1, 0x1.d6687b744a5f6p-2, 0x1.d76c3d8e57d67p-1, 0x1.4a4099fa1ded3p-1, 0x1.951156266d6f2p-1, 0x1.6dc9130ace95cp-3, 0x1.6788c1d097bb0p-2}, dtype(kFloat64)).repr(),
      "tensor([0.9701, 0.7078, 0.4594, 0.9207, 0.6450, 0.7911, 0.1786, 0.3511],\n"
      "       dtype=torch.float64)");
}

// torch.manual_seed(0); torch.rand(4); torch.rand(4)
TEST(PrintReference, Rng03) {
  EXPECT_EQ(tensor(std::vector<float>{0x1.3acd0c0000000p-2f, 0x1.44a5f60000000p-1f, 0x1.f5db0c0000000p-2f, 0x1.caface0000000p-1f}, dtype(kFloat32)).repr(),
      "tensor([0.3074, 0.6341, 0.4901, 0.8964])");
}

// torch.manual_seed(0); torch.rand(2, 4)
TEST(PrintReference, Rng04) {
  EXPECT_EQ(tensor(std::vector<float>{0x1.fc2ab00000000p-2f, 0x1.89545e0000000p-1f, 0x1.6a67500000000p-4f, 0x1.0e66000000000p-3f, 0x1.3acd0c0000000p-2f, 0x1.44a5f60000000p-1f, 0x1.f5db0c0000000p-2f, 0x1.caface0000000p-1f}, dtype(kFloat32)).as_strided({2, 4}, {4, 1}, 0).repr(),
      "tensor([[0.4963, 0.7682, 0.0885, 0.1320],\n"
      "        [0.3074, 0.6341, 0.4901, 0.8964]])");
}

// torch.manual_seed(0); torch.randn(1)
TEST(PrintReference, Rng05) {
  EXPECT_EQ(tensor(std::vector<float>{0x1.8a7eb80000000p+0f}, dtype(kFloat32)).repr(),
      "tensor([1.5410])");
}

// torch.manual_seed(0); torch.randn(8)
TEST(PrintReference, Rng06) {
  EXPECT_EQ(tensor(std::vector<float>{0x1.8a7eb80000000p+0f, -0x1.2c78a00000000p-2f, -0x1.16e2920000000p+1f, 0x1.23096c0000000p-1f, -0x1.15a3420000000p+0f, -0x1.660a5a0000000p+0f, 0x1.9d06f40000000p-2f, 0x1.ad11ca0000000p-1f}, dtype(kFloat32)).repr(),
      "tensor([ 1.5410, -0.2934, -2.1788,  0.5684, -1.0845, -1.3986,  0.4033,  0.8380])");
}

// torch.manual_seed(0); torch.randn(15)
TEST(PrintReference, Rng07) {
  EXPECT_EQ(tensor(std::vector<float>{0x1.8a7eb80000000p+0f, -0x1.2c78a00000000p-2f, -0x1.16e2920000000p+1f, 0x1.23096c0000000p-1f, -0x1.15a3420000000p+0f, -0x1.660a5a0000000p+0f, 0x1.9d06f40000000p-2f, 0x1.ad11ca0000000p-1f, -0x1.7042880000000p-1f, -0x1.9d06160000000p-2f, -0x1.317a300000000p-1f, 0x1.74cf8c0000000p-3f, -0x1.b69e0e0000000p-1f, 0x1.19c1320000000p+0f, -0x1.1239560000000p+0f}, dtype(kFloat32)).repr(),
      "tensor([ 1.5410, -0.2934, -2.1788,  0.5684, -1.0845, -1.3986,  0.4033,  0.8380,\n"
      "        -0.7193, -0.4033, -0.5966,  0.1820, -0.8567,  1.1006, -1.0712])");
}

// torch.manual_seed(0); torch.randn(16)
TEST(PrintReference, Rng08) {
  EXPECT_EQ(tensor(std::vector<float>{-0x1.20370a0000000p+0f, -0x1.2701140000000p+0f, -0x1.0097ac0000000p-2f, -0x1.bc4aba0000000p-2f, 0x1.b28a2a0000000p-1f, 0x1.624f060000000p-1f, -0x1.4398da0000000p-2f, -0x1.0ebf820000000p+1f, 0x1.4a02700000000p-2f, -0x1.4369e80000000p+0f, 0x1.6661fe0000000p-2f, 0x1.3b87760000000p-2f, 0x1.eadeee0000000p-4f, 0x1.3cd7260000000p+0f, 0x1.1de51c0000000p+0f, -0x1.fa6cf80000000p-3f}, dtype(kFloat32)).repr(),
      "tensor([-1.1258, -1.1524, -0.2506, -0.4339,  0.8487,  0.6920, -0.3160, -2.1152,\n"
      "         0.3223, -1.2633,  0.3500,  0.3081,  0.1198,  1.2377,  1.1168, -0.2473])");
}

// torch.manual_seed(0); torch.randn(17)
TEST(PrintReference, Rng09) {
  EXPECT_EQ(tensor(std::vector<float>{-0x1.20370a0000000p+0f, -0x1.b2288c0000000p+0f, 0x1.2220080000000p-1f, 0x1.9646ba0000000p-1f, 0x1.329b160000000p-1f, -0x1.8e1ab60000000p+0f, -0x1.5d8d940000000p-2f, 0x1.da5e9c0000000p+0f, 0x1.df54aa0000000p-2f, -0x1.2bc6560000000p-1f, -0x1.631dd60000000p-3f, 0x1.77c3480000000p-3f, 0x1.63ad800000000p+0f, 0x1.961a000000000p+0f, 0x1.e481380000000p-1f, -0x1.aff6660000000p-1f, 0x1.dd18600000000p-1f}, dtype(kFloat32)).repr(),
      "tensor([-1.1258, -1.6959,  0.5667,  0.7935,  0.5988, -1.5551, -0.3414,  1.8530,\n"
      "         0.4681, -0.5855, -0.1734,  0.1835,  1.3894,  1.5863,  0.9463, -0.8437,\n"
      "         0.9318])");
}

// torch.manual_seed(0); torch.randn(20)
TEST(PrintReference, Rng10) {
  EXPECT_EQ(tensor(std::vector<float>{-0x1.20370a0000000p+0f, -0x1.2701140000000p+0f, -0x1.0097ac0000000p-2f, -0x1.bc4aba0000000p-2f, 0x1.329b160000000p-1f, -0x1.8e1ab60000000p+0f, -0x1.5d8d940000000p-2f, 0x1.da5e9c0000000p+0f, 0x1.df54aa0000000p-2f, -0x1.42febe0000000p-3f, 0x1.7193b60000000p+0f, 0x1.106f420000000p-2f, 0x1.63ad800000000p+0f, 0x1.961a000000000p+0f, 0x1.e481380000000p-1f, -0x1.aff6660000000p-1f, 0x1.dd18600000000p-1f, 0x1.424e6e0000000p+0f, 0x1.00a3340000000p+1f, 0x1.b836740000000p-5f}, dtype(kFloat32)).repr(),
      "tensor([-1.1258, -1.1524, -0.2506, -0.4339,  0.5988, -1.5551, -0.3414,  1.8530,\n"
      "         0.4681, -0.1577,  1.4437,  0.2660,  1.3894,  1.5863,  0.9463, -0.8437,\n"
      "         0.9318,  1.2590,  2.0050,  0.0537])");
}

// torch.manual_seed(0); torch.randn(8, dtype=torch.float64)
TEST(PrintReference, Rng11) {
  EXPECT_EQ(tensor(std::vector<double>{0x1.8a7eb8902be3ap+0, -0x1.2c78a087c6feap-2, -0x1.16e2920a70ee5p+1, 0x1.23096ca3e350dp-1, -0x1.15a341987e136p+0, -0x1.660a590b74404p+0, 0x1.9d06f4be0cd62p-2, 0x1.ad11c99ad2d18p-1}, dtype(kFloat64)).repr(),
      "tensor([ 1.5410, -0.2934, -2.1788,  0.5684, -1.0845, -1.3986,  0.4033,  0.8380],\n"
      "       dtype=torch.float64)");
}

// torch.manual_seed(0); torch.randn(20, dtype=torch.float64)
TEST(PrintReference, Rng12) {
  EXPECT_EQ(tensor(std::vector<double>{-0x1.27bb92e9262dcp+1, -0x1.7e35794939460p-2, -0x1.0f91ae8d685b6p+0, 0x1.ffbfb0ada994bp-1, -0x1.471a3c0e2f22ap-6, 0x1.aeb1b572b6a04p-3, 0x1.6ae2402b7b62bp-3, -0x1.a9389d082941dp-1, 0x1.e8e503666016dp-3, 0x1.779107c3069d9p-1, -0x1.5266d8f957969p+0, 0x1.50977a45ee462p+0, -0x1.5fbef2bc4be3bp-1, 0x1.7cf270386ca66p+0, -0x1.cb2d8340fb171p-2, -0x1.c8318cc163de5p-1, 0x1.5986ed8e63e98p-1, 0x1.0bff5e8d733a2p+0, 0x1.3bff1c51bd9a4p-3, -0x1.7ff1c81c48b11p-1}, dtype(kFloat64)).repr(),
      "tensor([-2.3104, -0.3733, -1.0608,  0.9995, -0.0200,  0.2103,  0.1772, -0.8305,\n"
      "         0.2387,  0.7335, -1.3219,  1.3148, -0.6870,  1.4881, -0.4484, -0.8910,\n"
      "         0.6749,  1.0469,  0.1543, -0.7499], dtype=torch.float64)");
}

// torch.manual_seed(0); torch.randn(3); torch.randn(3)
TEST(PrintReference, Rng13) {
  EXPECT_EQ(tensor(std::vector<float>{0x1.23096c0000000p-1f, -0x1.15a3420000000p+0f, -0x1.660a5a0000000p+0f}, dtype(kFloat32)).repr(),
      "tensor([ 0.5684, -1.0845, -1.3986])");
}

// torch.manual_seed(0); torch.rand(3); torch.randn(4)
TEST(PrintReference, Rng14) {
  EXPECT_EQ(tensor(std::vector<float>{0x1.7515120000000p-2f, 0x1.133e620000000p-3f, 0x1.50509c0000000p-3f, 0x1.39196a0000000p-2f}, dtype(kFloat32)).repr(),
      "tensor([0.3643, 0.1344, 0.1642, 0.3058])");
}

// torch.manual_seed(0); torch.randint(0, 10, (8,))
TEST(PrintReference, Rng15) {
  EXPECT_EQ(tensor(std::vector<int64_t>{4, 9, 3, 0, 3, 9, 7, 3}, dtype(kInt64)).repr(),
      "tensor([4, 9, 3, 0, 3, 9, 7, 3])");
}

// torch.manual_seed(0); torch.randint(-5, 5, (8,), dtype=torch.int32)
TEST(PrintReference, Rng16) {
  EXPECT_EQ(tensor(std::vector<int32_t>{-1, 4, -2, -5, -2, 4, 2, -2}, dtype(kInt32)).repr(),
      "tensor([-1,  4, -2, -5, -2,  4,  2, -2], dtype=torch.int32)");
}

// torch.manual_seed(0); torch.normal(0.0, 1.0, size=(8,))
TEST(PrintReference, Rng17) {
  EXPECT_EQ(tensor(std::vector<float>{0x1.8a7eb80000000p+0f, -0x1.2c78a00000000p-2f, -0x1.16e2920000000p+1f, 0x1.23096c0000000p-1f, -0x1.15a3420000000p+0f, -0x1.660a5a0000000p+0f, 0x1.9d06f40000000p-2f, 0x1.ad11ca0000000p-1f}, dtype(kFloat32)).repr(),
      "tensor([ 1.5410, -0.2934, -2.1788,  0.5684, -1.0845, -1.3986,  0.4033,  0.8380])");
}

// torch.manual_seed(0); torch.normal(2.0, 3.0, size=(20,))
TEST(PrintReference, Rng18) {
  EXPECT_EQ(tensor(std::vector<float>{-0x1.60a51e0000000p+0f, -0x1.75033c0000000p+0f, 0x1.3f8e400000000p+0f, 0x1.658fe80000000p-1f, 0x1.e5f4500000000p+1f, -0x1.5528100000000p+1f, 0x1.f3aba20000000p-1f, 0x1.e3c6f40000000p+2f, 0x1.b3bfc00000000p+1f, 0x1.86e0780000000p+0f, 0x1.952ec80000000p+2f, 0x1.6629b80000000p+1f, 0x1.8ac2200000000p+2f, 0x1.b093800000000p+2f, 0x1.35b0740000000p+2f, -0x1.0fe3320000000p-1f, 0x1.32e9240000000p+2f, 0x1.71bad20000000p+2f, 0x1.007a680000000p+3f, 0x1.14a28e0000000p+1f}, dtype(kFloat32)).repr(),
      "tensor([-1.3775, -1.4571,  1.2483,  0.6984,  3.7965, -2.6653,  0.9759,  7.5590,\n"
      "         3.4043,  1.5269,  6.3310,  2.7981,  6.1681,  6.7590,  4.8389, -0.5310,\n"
      "         4.7955,  5.7770,  8.0149,  2.1612])");
}

// torch.manual_seed(0); torch.normal(torch.zeros(4), torch.ones(4))
TEST(PrintReference, Rng19) {
  EXPECT_EQ(tensor(std::vector<float>{0x1.8a7eb80000000p+0f, -0x1.2c78a00000000p-2f, -0x1.16e2920000000p+1f, 0x1.23096c0000000p-1f}, dtype(kFloat32)).repr(),
      "tensor([ 1.5410, -0.2934, -2.1788,  0.5684])");
}

// torch.manual_seed(0); torch.empty(8).uniform_(-1, 1)
TEST(PrintReference, Rng20) {
  EXPECT_EQ(tensor(std::vector<float>{-0x1.eaa8000000000p-8f, 0x1.12a8bc0000000p-1f, -0x1.a5662c0000000p-1f, -0x1.78cd000000000p-1f, -0x1.8a65e80000000p-2f, 0x1.1297d80000000p-2f, -0x1.449e800000000p-6f, 0x1.95f59c0000000p-1f}, dtype(kFloat32)).repr(),
      "tensor([-0.0075,  0.5364, -0.8230, -0.7359, -0.3852,  0.2682, -0.0198,  0.7929])");
}

// torch.manual_seed(0); torch.randperm(10)
TEST(PrintReference, Rng21) {
  EXPECT_EQ(tensor(std::vector<int64_t>{4, 1, 7, 5, 3, 9, 0, 8, 6, 2}, dtype(kInt64)).repr(),
      "tensor([4, 1, 7, 5, 3, 9, 0, 8, 6, 2])");
}

// torch.manual_seed(0); torch.bernoulli(torch.full((8,), 0.5))
TEST(PrintReference, Rng22) {
  EXPECT_EQ(tensor(std::vector<float>{0x1.0000000000000p+0f, 0x0.0p+0f, 0x1.0000000000000p+0f, 0x1.0000000000000p+0f, 0x1.0000000000000p+0f, 0x0.0p+0f, 0x1.0000000000000p+0f, 0x0.0p+0f}, dtype(kFloat32)).repr(),
      "tensor([1., 0., 1., 1., 1., 0., 1., 0.])");
}

// torch.manual_seed(0); torch.nn.Linear(4, 3).weight
TEST(PrintReference, Rng23) {
  EXPECT_EQ(tensor(std::vector<float>{-0x1.eaa8000000000p-9f, 0x1.12a8bc0000000p-2f, -0x1.a5662c0000000p-2f, -0x1.78cd000000000p-2f, -0x1.8a65e80000000p-3f, 0x1.1297d80000000p-3f, -0x1.449e800000000p-7f, 0x1.95f59c0000000p-2f, -0x1.6b7ee00000000p-5f, 0x1.0ef6980000000p-3f, -0x1.3577580000000p-3f, -0x1.9290e00000000p-4f}, dtype(kFloat32)).as_strided({3, 4}, {4, 1}, 0).repr(),
      "tensor([[-0.0037,  0.2682, -0.4115, -0.3680],\n"
      "        [-0.1926,  0.1341, -0.0099,  0.3964],\n"
      "        [-0.0444,  0.1323, -0.1511, -0.0983]])");
}

// ---- reference section "C++ std::cout << tensor format" (verbatim) ----

// torch::ones({2,3})
TEST(PrintCppReference, OnesTwoByThree) {
  EXPECT_EQ(ones({2, 3}).cpp_repr(),
      " 1  1  1\n"
      " 1  1  1\n"
      "[ CPUFloatType{2,3} ]");
}

// torch::manual_seed(0); torch::rand({3,4})
TEST(PrintCppReference, RandThreeByFour) {
  EXPECT_EQ(tensor({{0.4963, 0.7682, 0.0885, 0.1320}, {0.3074, 0.6341, 0.4901, 0.8964}, {0.4556, 0.6323, 0.3489, 0.4017}}).cpp_repr(),
      " 0.4963  0.7682  0.0885  0.1320\n"
      " 0.3074  0.6341  0.4901  0.8964\n"
      " 0.4556  0.6323  0.3489  0.4017\n"
      "[ CPUFloatType{3,4} ]");
}

// torch::tensor({1,4,7,3,6,9,2,5,8}).view({3,3})
TEST(PrintCppReference, Int64Matrix) {
  EXPECT_EQ(tensor({1, 4, 7, 3, 6, 9, 2, 5, 8}).as_strided({3, 3}, {3, 1}, 0).cpp_repr(),
      " 1  4  7\n"
      " 3  6  9\n"
      " 2  5  8\n"
      "[ CPULongType{3,3} ]");
}

// torch::tensor({1.5e10, 1.0}, kFloat)
TEST(PrintCppReference, SciColumn) {
  EXPECT_EQ(tensor({1.5e10, 1.0}, dtype(kFloat)).cpp_repr(),
      " 1.5000e+10\n"
      " 1.0000e+00\n"
      "[ CPUFloatType{2} ]");
}

// torch::arange(10.)
TEST(PrintCppReference, Arange10) {
  EXPECT_EQ(arange(10.).cpp_repr(),
      " 0\n"
      " 1\n"
      " 2\n"
      " 3\n"
      " 4\n"
      " 5\n"
      " 6\n"
      " 7\n"
      " 8\n"
      " 9\n"
      "[ CPUFloatType{10} ]");
}

// torch::tensor({true, false})
TEST(PrintCppReference, Bool) {
  EXPECT_EQ(tensor({true, false}).cpp_repr(),
      " 1\n"
      " 0\n"
      "[ CPUBoolType{2} ]");
}

// torch::empty({0})
TEST(PrintCppReference, Empty0) {
  EXPECT_EQ(empty({0}).cpp_repr(),
      "[ CPUFloatType{0} ]");
}

// torch::empty({0, 3})
TEST(PrintCppReference, Empty0x3) {
  EXPECT_EQ(empty({0, 3}).cpp_repr(),
      "[ CPUFloatType{0,3} ]");
}

// torch::tensor(3.5)
TEST(PrintCppReference, Scalar) {
  EXPECT_EQ(tensor(3.5).cpp_repr(),
      "3.5\n"
      "[ CPUFloatType{} ]");
}

// torch::ones({2}, requires_grad) * 2
TEST(PrintCppReference, RequiresGradTimesTwo) {
  EXPECT_EQ(ones({2}).requires_grad_(true).mul(2).cpp_repr(),
      " 2\n"
      " 2\n"
      "[ CPUFloatType{2} ]");
}

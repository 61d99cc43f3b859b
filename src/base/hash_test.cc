#include "base/hash.h"

#include <gtest/gtest.h>

namespace omnigraph {
namespace {

TEST(Sha256Test, FipsVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, PiecesHashAsTheirConcatenation) {
  const std::string text = "the quick brown fox jumps over the lazy dog, again and again";
  Sha256Hasher hasher;
  for (size_t i = 0; i < text.size(); i += 7) hasher.Update(std::string_view(text).substr(i, 7));
  EXPECT_EQ(hasher.FinishHex(), Sha256Hex(text));
  Sha256Hasher empty;
  EXPECT_EQ(empty.FinishHex(), Sha256Hex(""));
}

TEST(HmacSha256Test, Rfc4231Vectors) {
  EXPECT_EQ(HexEncode(HmacSha256(std::string(20, '\x0b'), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(HexEncode(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // Test case 6: a key longer than the block size is hashed first.
  EXPECT_EQ(HexEncode(HmacSha256(std::string(131, '\xaa'),
                                 "Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(XxHash64Test, KnownValues) {
  EXPECT_EQ(XxHash64(std::string_view("")), 0xEF46DB3751D8E999ULL);
  EXPECT_EQ(XxHash64(std::string_view("a")), 0xD24EC4F1A98C6E5BULL);
  EXPECT_NE(XxHash64(std::string_view("a"), 1), XxHash64(std::string_view("a"), 0));
}

TEST(XxHash64Test, PiecesHashAsTheirConcatenation) {
  const std::string whole = std::string(1000, 'x') + "tail of the input";
  XxHash64Hasher hasher;
  hasher.Update(std::string_view(whole).substr(0, 7));
  hasher.Update(std::string_view(whole).substr(7, 500));
  hasher.Update(std::string_view(whole).substr(507));
  EXPECT_EQ(hasher.Finish(), XxHash64(whole));
  EXPECT_EQ(XxHash64Hasher().Finish(), XxHash64(std::string_view("")));
}

TEST(HexTest, EncodesLowerCase) {
  EXPECT_EQ(HexEncode(std::string_view("\x01\xab\xff")), "01abff");
}

}  // namespace
}  // namespace omnigraph

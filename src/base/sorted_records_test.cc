#include "base/sorted_records.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <utility>

namespace omnigraph {
namespace {

using Records = std::vector<std::pair<std::string, std::string>>;

Records ReadAll(const SortedRecords& records) {
  Records out;
  std::unique_ptr<SortedRecords::Reader> reader = records.Open();
  std::string_view key, value;
  while (true) {
    Result<bool> more = reader->Next(&key, &value);
    EXPECT_TRUE(more.ok()) << more.status().ToString();
    if (!more.ok() || !*more) break;
    out.emplace_back(key, value);
  }
  return out;
}

size_t OpenFiles() {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/fd"))
    ++n;
  return n;
}

Records RandomRecords(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Records out;
  for (size_t i = 0; i < n; ++i) {
    // Short keys over a small alphabet, so equal keys (ordered by value) are common; bytes
    // above 0x7f check the order is unsigned.
    std::string key(1 + rng() % 6, ' ');
    for (char& c : key) c = "ab\x80\xff"[rng() % 4];
    out.emplace_back(std::move(key), std::to_string(rng() % 1000));
  }
  return out;
}

TEST(BigEndianTest, PutWritesTheLowBytesMostSignificantFirstAndAtReadsThemBack) {
  std::string out = "x";
  PutBigEndian(0x0102030405060708ULL, 8, &out);
  PutBigEndian(0xABCD1234ULL, 2, &out);
  PutBigEndian(0xFFULL, 4, &out);
  PutBigEndian(0x7AULL, 1, &out);
  EXPECT_EQ(out, std::string("x\x01\x02\x03\x04\x05\x06\x07\x08\x12\x34\x00\x00\x00\xFF\x7A", 16));
  EXPECT_EQ(BigEndianAt(out, 1, 8), 0x0102030405060708ULL);
  EXPECT_EQ(BigEndianAt(out, 9, 2), 0x1234ULL);
  EXPECT_EQ(BigEndianAt(out, 11, 4), 0xFFULL);
  EXPECT_EQ(BigEndianAt(out, 15, 1), 0x7AULL);
}

TEST(ExternalSorterTest, InMemoryWhenTheRecordsFitTheBudget) {
  ExternalSorter sorter;
  Records input = RandomRecords(1000, 1);
  for (const auto& [k, v] : input) ASSERT_TRUE(sorter.Add(k, v).ok());
  EXPECT_EQ(sorter.size(), 1000u);
  Result<std::shared_ptr<const SortedRecords>> sorted = sorter.Finish();
  ASSERT_TRUE(sorted.ok());
  EXPECT_FALSE((*sorted)->spilled());
  EXPECT_EQ(sorter.runs_spilled(), 0u);
  std::sort(input.begin(), input.end());
  EXPECT_EQ(ReadAll(**sorted), input);
  EXPECT_EQ((*sorted)->size(), 1000u);
}

TEST(ExternalSorterTest, SpillsRunsAndMergesInSeveralPasses) {
  // A 4 KiB budget holds ~100 records: 100,000 records make ~1,000 runs, more than one merge pass
  // takes (kSortMergeFanIn).
  ExternalSorter sorter(4096);
  Records input = RandomRecords(100000, 2);
  const size_t fds_before = OpenFiles();
  for (const auto& [k, v] : input) ASSERT_TRUE(sorter.Add(k, v).ok());
  EXPECT_LE(OpenFiles() - fds_before, 2 * kSortMergeFanIn);
  Result<std::shared_ptr<const SortedRecords>> sorted = sorter.Finish();
  ASSERT_TRUE(sorted.ok()) << sorted.status().ToString();
  EXPECT_GT(sorter.runs_spilled(), kSortMergeFanIn * 2);
  EXPECT_TRUE((*sorted)->spilled());
  std::sort(input.begin(), input.end());
  EXPECT_EQ(ReadAll(**sorted), input);
  // Re-readable, with independent readers.
  EXPECT_EQ(ReadAll(**sorted), input);
  // The sorter is empty again and can be reused.
  ASSERT_TRUE(sorter.Add("z", "1").ok());
  Result<std::shared_ptr<const SortedRecords>> again = sorter.Finish();
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(ReadAll(**again), (Records{{"z", "1"}}));
}

TEST(ExternalSorterTest, RecordsLargerThanTheReadBuffer) {
  ExternalSorter sorter(1024);
  Records input;
  for (int i = 0; i < 5; ++i) {
    input.emplace_back(std::string(kSortReadBytes + 1000 * i, static_cast<char>('e' - i)),
                       std::string(3 * kSortReadBytes / 2, 'v'));
    input.emplace_back("k" + std::to_string(i), "");
  }
  for (const auto& [k, v] : input) ASSERT_TRUE(sorter.Add(k, v).ok());
  Result<std::shared_ptr<const SortedRecords>> sorted = sorter.Finish();
  ASSERT_TRUE(sorted.ok());
  EXPECT_TRUE((*sorted)->spilled());
  std::sort(input.begin(), input.end());
  EXPECT_EQ(ReadAll(**sorted), input);
}

TEST(ExternalSorterTest, ARecordLargerThanTheBudgetDoesNotMakeEveryLaterRecordARun) {
  ExternalSorter sorter(1 << 20);
  ASSERT_TRUE(sorter.Add(std::string(2 << 20, 'b'), "").ok());
  Records input = {{std::string(2 << 20, 'b'), ""}};
  for (int i = 0; i < 2000; ++i) {
    input.emplace_back("k" + std::to_string(i), "v");
    ASSERT_TRUE(sorter.Add(input.back().first, "v").ok());
  }
  // The big record is one run; the small ones fit the budget together.
  EXPECT_LE(sorter.runs_spilled(), 2u);
  Result<std::shared_ptr<const SortedRecords>> sorted = sorter.Finish();
  ASSERT_TRUE(sorted.ok());
  std::sort(input.begin(), input.end());
  EXPECT_EQ(ReadAll(**sorted), input);
}

TEST(ExternalSorterTest, NothingAdded) {
  ExternalSorter sorter;
  Result<std::shared_ptr<const SortedRecords>> sorted = sorter.Finish();
  ASSERT_TRUE(sorted.ok());
  EXPECT_TRUE((*sorted)->empty());
  EXPECT_TRUE(ReadAll(**sorted).empty());
}

TEST(SortedRecordsWriterTest, SpillsPastItsBudgetAndRefusesDisorder) {
  SortedRecordsWriter writer(/*memory_bytes=*/100);
  Records input;
  for (int i = 0; i < 10000; ++i) input.emplace_back("id" + std::to_string(100000 + i), "x");
  for (const auto& [k, v] : input) ASSERT_TRUE(writer.Add(k, v).ok());
  Result<std::shared_ptr<const SortedRecords>> records = writer.Finish();
  ASSERT_TRUE(records.ok());
  EXPECT_TRUE((*records)->spilled());
  EXPECT_EQ(ReadAll(**records), input);

  SortedRecordsWriter small;
  ASSERT_TRUE(small.Add("b").ok());
  Status out_of_order = small.Add("a");
  EXPECT_EQ(out_of_order.code(), Code::kInternal);
}

TEST(TempFileTest, NoDirectoryNamesItAndItReadsBackWhatWasAppended) {
  const std::string dir = std::filesystem::temp_directory_path().string() + "/omnigraph-tempfile-" +
                          std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const char* saved = std::getenv("TMPDIR");
  const std::string saved_value = saved == nullptr ? "" : saved;
  ::setenv("TMPDIR", dir.c_str(), 1);
  Result<std::unique_ptr<TempFile>> file = TempFile::Create();
  if (saved == nullptr) {
    ::unsetenv("TMPDIR");
  } else {
    ::setenv("TMPDIR", saved_value.c_str(), 1);
  }
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  // Unlinked at creation: a process that dies leaves nothing behind.
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  ASSERT_TRUE((*file)->Append("hello ").ok());
  ASSERT_TRUE((*file)->Append("world").ok());
  EXPECT_EQ((*file)->size(), 11u);
  std::string out(5, '\0');
  Result<size_t> got = (*file)->ReadAt(6, out);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, 5u);
  EXPECT_EQ(out, "world");
  got = (*file)->ReadAt(9, out);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, 2u) << "short only at the end";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace omnigraph

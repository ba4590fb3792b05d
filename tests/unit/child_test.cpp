/* The one child-process runner (core/foundation/child.hpp): a body's result, its exception of each
 * kind, its captured output, an abort and an exit without a result. */
#include "core/foundation/child.hpp"
#include "core/foundation/error.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>

using namespace sgai;

TEST(Child, ReturnsTheBodysBytes)
{
  std::string big(300000, 'x'); // larger than a pipe's buffer
  big[12345] = '\0';
  auto r     = run_in_child([&big]() { return big; });
  EXPECT_TRUE(r.exited_ok());
  EXPECT_FALSE(r.threw());
  EXPECT_EQ(r.data, big);
  EXPECT_TRUE(r.output.empty());
}

TEST(Child, BringsAnInputErrorBackWithItsParts)
{
  auto r = run_in_child([]() -> std::string { throw InputError("f.json", "/a/b", "bad value 3"); });
  EXPECT_FALSE(r.exited_ok());
  ASSERT_EQ(r.error_kind, 'I');
  EXPECT_EQ(r.error_file, "f.json");
  EXPECT_EQ(r.error_place, "/a/b");
  EXPECT_EQ(r.error_message, "bad value 3");
  EXPECT_EQ(r.error_what(), InputError("f.json", "/a/b", "bad value 3").what());
  try {
    r.rethrow();
    FAIL() << "rethrow returned";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "f.json");
    EXPECT_EQ(e.place(), "/a/b");
    EXPECT_EQ(e.message(), "bad value 3");
  }
}

TEST(Child, BringsUsageAndOtherErrorsBackAsTheirKind)
{
  auto u = run_in_child([]() -> std::string { throw UsageError("--x: not a number"); });
  EXPECT_EQ(u.error_kind, 'U');
  EXPECT_THROW(u.rethrow(), UsageError);
  auto o = run_in_child([]() -> std::string { throw std::out_of_range("index 7"); });
  EXPECT_EQ(o.error_kind, 'R');
  EXPECT_EQ(o.error_what(), "index 7");
  EXPECT_THROW(o.rethrow(), RunError);
  EXPECT_TRUE(WIFEXITED(o.status));
  EXPECT_EQ(WEXITSTATUS(o.status), 2);
}

TEST(Child, CapturesStandardOutputAndError)
{
  ChildOptions options;
  options.capture_output = true;
  auto r                 = run_in_child(
      []() {
        std::printf("to stdout\n");
        std::fflush(stdout);
        std::fprintf(stderr, "to stderr\n");
        return std::string("done");
      },
      options);
  EXPECT_TRUE(r.exited_ok());
  EXPECT_EQ(r.data, "done");
  EXPECT_EQ(r.output, "to stdout\nto stderr\n");
}

TEST(Child, AnAbortEndsTheChildWithoutAResult)
{
  ChildOptions options;
  options.capture_output = true;
  options.default_abort  = true;
  auto r                 = run_in_child(
      []() -> std::string {
        std::fprintf(stderr, "about to abort\n");
        std::abort();
      },
      options);
  EXPECT_FALSE(r.exited_ok());
  EXPECT_TRUE(WIFSIGNALED(r.status));
  EXPECT_EQ(WTERMSIG(r.status), SIGABRT);
  EXPECT_FALSE(r.threw());
  EXPECT_TRUE(r.data.empty());
  EXPECT_EQ(r.output, "about to abort\n");
}

TEST(Child, AnExitInTheBodyGivesNoResult)
{
  auto r = run_in_child([]() -> std::string { ::_exit(7); });
  EXPECT_FALSE(r.exited_ok());
  EXPECT_EQ(WEXITSTATUS(r.status), 7);
  EXPECT_FALSE(r.threw());
  EXPECT_TRUE(r.data.empty());
}

TEST(Child, ByteReaderReadsBackInOrder)
{
  std::string buf;
  double d   = 2.5;
  uint64_t n = 42;
  append_bytes(buf, &d, sizeof d);
  append_bytes(buf, &n, sizeof n);
  ByteReader in(buf);
  double d2   = 0;
  uint64_t n2 = 0;
  ASSERT_TRUE(in.read(&d2, sizeof d2));
  ASSERT_TRUE(in.read(&n2, sizeof n2));
  EXPECT_EQ(d2, 2.5);
  EXPECT_EQ(n2, 42u);
  EXPECT_FALSE(in.read(&n2, 1));
}

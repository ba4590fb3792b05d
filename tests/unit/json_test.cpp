#include "core/foundation/error.hpp"
#include "core/foundation/json.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

using sgai::InputError;
using sgai::test::error_of;
namespace json = sgai::json;

TEST(Json, SyntaxErrorNamesLineAndColumn)
{
  auto msg = error_of([] { json::parse("{\n  \"a\": 1,\n  \"b\": }\n", "f.json"); });
  EXPECT_NE(msg.find("f.json: line 3, column 8: invalid JSON"), std::string::npos) << msg;
}

TEST(Json, DuplicateKeysAreErrorsWithTheirPointer)
{
  auto msg = error_of([] { json::parse(R"({"a": [{"x": 1}, {"x": 1, "x": 2}]})", "f.json"); });
  EXPECT_NE(msg.find("f.json: at /a/1/x: duplicate key 'x'"), std::string::npos) << msg;
  msg = error_of([] { json::parse(R"({"a": 1, "b": {"c/d": {"e": 1, "e": 2}}})", "f.json"); });
  EXPECT_NE(msg.find("at /b/c~1d/e: duplicate key 'e'"), std::string::npos) << msg;
}

TEST(Json, UnknownKeysListTheAcceptedOnes)
{
  auto doc = json::parse(R"({"name": "x", "nmae": "y", "_doc": "comments are fine"})", "f.json");
  auto o   = doc.object();
  EXPECT_EQ(o.required("name").string(), "x");
  auto msg = error_of([&] { o.finish({"name", "seed"}); });
  EXPECT_NE(msg.find("f.json: at /nmae: unknown key 'nmae' (accepted keys here: 'name', 'seed')"), std::string::npos)
      << msg;
}

TEST(Json, TypedAccessorsCheckValues)
{
  auto doc = json::parse(R"({"n": 1.5, "s": "a", "neg": -2, "bw": "10Gbps", "bad": "10Gbsp", "bare": 3})", "f.json");
  auto o   = doc.object();
  EXPECT_NE(error_of([&] { o.required("n").integer(); }).find("at /n: value 1.5 is not a whole number"),
            std::string::npos);
  EXPECT_NE(error_of([&] { o.required("s").number(); }).find("at /s: expected a number, got 'a'"), std::string::npos);
  EXPECT_NE(error_of([&] { o.required("neg").positive(); }).find("at /neg: value -2 must be positive"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(o.required("bw").quantity(sgai::units::Quantity::bandwidth), 1.25e9);
  auto msg = error_of([&] { o.required("bad").quantity(sgai::units::Quantity::bandwidth); });
  EXPECT_NE(msg.find("at /bad: malformed bandwidth '10Gbsp': expected a bandwidth such as"), std::string::npos) << msg;
  EXPECT_NE(error_of([&] { o.required("bare").quantity(sgai::units::Quantity::time); }).find("has no unit"),
            std::string::npos);
  EXPECT_DOUBLE_EQ(o.required("bare").quantity(sgai::units::Quantity::time, 1.0), 3.0);
  EXPECT_NE(error_of([&] { o.required("missing"); }).find("at (root): missing field 'missing'"), std::string::npos);
  EXPECT_NE(error_of([&] {
              o.required("s").choice({"x", "y"});
            }).find("unknown value 'a' (expected one of: 'x', 'y')"),
            std::string::npos);
}

TEST(Json, ChecksWithoutErrorsForReadersWithTheirOwnMessages)
{
  auto doc = json::parse(R"({"u": 18446744073709551615, "i": -3, "f": 3.0, "s": "3", "z": null, "": 1,
                             "o": {"b": [1, 2], "a": "x"}})",
                         "f.json");
  auto o   = doc.object();
  EXPECT_TRUE(o.required("i").is_integer());
  EXPECT_FALSE(o.required("f").is_integer()); // written with a fraction
  EXPECT_FALSE(o.required("s").is_integer());
  EXPECT_EQ(o.required("u").as_uint64(), UINT64_MAX);
  EXPECT_FALSE(o.required("u").as_int64());
  EXPECT_EQ(o.required("i").as_int64(), -3);
  EXPECT_FALSE(o.required("i").as_uint64());
  EXPECT_FALSE(o.required("f").as_int64());
  EXPECT_EQ(o.required("o").dump(), R"({"a":"x","b":[1,2]})");
  // contains: present even when null or the empty key; has: null counts as absent
  EXPECT_TRUE(o.contains("z"));
  EXPECT_FALSE(o.has("z"));
  EXPECT_TRUE(o.contains(""));
  EXPECT_FALSE(o.contains("nothing"));
}

TEST(Json, ValuesAtPointers)
{
  auto doc = json::parse(R"({"a": [{"b/c": 1}, null], "d": {"": 2}})", "f.json");
  ASSERT_TRUE(doc.at("/a/0/b~1c"));
  EXPECT_EQ(doc.at("/a/0/b~1c")->number(), 1);
  EXPECT_EQ(doc.at("/a/0/b~1c")->pointer(), "/a/0/b~1c");
  EXPECT_TRUE(doc.at("/a/1")->is_null()); // null is there
  EXPECT_TRUE(doc.at("")->is_object());   // the root
  EXPECT_EQ(doc.at("/d/")->number(), 2);  // the empty key
  EXPECT_FALSE(doc.at("/a/2"));
  EXPECT_FALSE(doc.at("/a/x"));
  EXPECT_FALSE(doc.at("/nothing"));
  EXPECT_FALSE(doc.at("no slash")); // malformed
  auto msg = error_of([&] { doc.at("/a/0/b~1c")->string(); });
  EXPECT_NE(msg.find("f.json: at /a/0/b~1c: expected a string, got 1"), std::string::npos) << msg;
}

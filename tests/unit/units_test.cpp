#include "core/foundation/numbers.hpp"
#include "core/foundation/units.hpp"

#include <gtest/gtest.h>

using sgai::units::parse;
using sgai::units::Quantity;

TEST(Units, Bandwidth)
{
  EXPECT_DOUBLE_EQ(*parse("10Gbps", Quantity::bandwidth), 1.25e9);
  EXPECT_DOUBLE_EQ(*parse("10.0Gbps", Quantity::bandwidth), 1.25e9);
  EXPECT_DOUBLE_EQ(*parse("54.54Gbps", Quantity::bandwidth), 54.54e9 / 8);
  EXPECT_DOUBLE_EQ(*parse("1.25GBps", Quantity::bandwidth), 1.25e9);
  EXPECT_DOUBLE_EQ(*parse("3.35TBps", Quantity::bandwidth), 3.35e12);
  EXPECT_DOUBLE_EQ(*parse("1GiBps", Quantity::bandwidth), 1073741824.0);
  EXPECT_DOUBLE_EQ(*parse("100 MB/s", Quantity::bandwidth), 1e8);
  EXPECT_DOUBLE_EQ(*parse("1kbps", Quantity::bandwidth), 125.0);
  EXPECT_DOUBLE_EQ(*parse("1Kbps", Quantity::bandwidth), 125.0);
}

TEST(Units, TimeIsExactForDecimalInputs)
{
  EXPECT_EQ(*parse("0us", Quantity::time), 0.0);
  EXPECT_EQ(*parse("700ns", Quantity::time), 7e-07);
  EXPECT_EQ(*parse("1.5us", Quantity::time), 1.5e-06);
  EXPECT_EQ(*parse("103.75ns", Quantity::time), 103.75e-9);
  EXPECT_EQ(*parse("2h", Quantity::time), 7200.0);
  EXPECT_EQ(*parse("30s", Quantity::time), 30.0);
}

TEST(Units, SpeedSizePowerFrequency)
{
  EXPECT_DOUBLE_EQ(*parse("2.26Gf", Quantity::speed), 2.26e9);
  EXPECT_DOUBLE_EQ(*parse("989.4TFLOPS", Quantity::speed), 989.4e12);
  EXPECT_DOUBLE_EQ(*parse("1Pflops", Quantity::speed), 1e15);
  EXPECT_DOUBLE_EQ(*parse("80GiB", Quantity::size), 80.0 * 1024 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(*parse("2TB", Quantity::size), 2e12);
  EXPECT_DOUBLE_EQ(*parse("8b", Quantity::size), 1.0);
  EXPECT_DOUBLE_EQ(*parse("700W", Quantity::power), 700.0);
  EXPECT_DOUBLE_EQ(*parse("1.2kW", Quantity::power), 1200.0);
  EXPECT_DOUBLE_EQ(*parse("2.6GHz", Quantity::frequency), 2.6e9);
}

TEST(Units, RejectsMalformedValues)
{
  EXPECT_FALSE(parse("10Gbsp", Quantity::bandwidth));
  EXPECT_FALSE(parse("10", Quantity::bandwidth));
  EXPECT_FALSE(parse("Gbps", Quantity::bandwidth));
  EXPECT_FALSE(parse("", Quantity::time));
  EXPECT_FALSE(parse("ten seconds", Quantity::time));
  EXPECT_FALSE(parse("10Gbps", Quantity::time));
  EXPECT_FALSE(parse("1e999Gbps", Quantity::bandwidth));
  EXPECT_FALSE(parse("5 parsecs", Quantity::time));
  EXPECT_FALSE(parse("10 Gb ps", Quantity::bandwidth));
}

TEST(Units, ExpectedTextListsUnits)
{
  auto e = sgai::units::expected(Quantity::bandwidth);
  EXPECT_NE(e.find("Gbps"), std::string::npos);
  EXPECT_NE(e.find("GBps"), std::string::npos);
  EXPECT_NE(sgai::units::expected(Quantity::time).find("us"), std::string::npos);
}

TEST(Numbers, FormattingForFilesAndTables)
{
  EXPECT_EQ(sgai::format_number(0.1), "0.1");
  EXPECT_EQ(sgai::format_number(100000), "1e+05"); // shortest round trip
  EXPECT_EQ(sgai::format_plain(100000), "100000");
  EXPECT_EQ(sgai::format_plain(-3), "-3");
  EXPECT_EQ(sgai::format_plain(2.5), "2.5");
  EXPECT_EQ(sgai::format_plain(1e300), "1e+300");
  EXPECT_EQ(sgai::format_fixed(1.5, 2), "1.50");
  EXPECT_EQ(sgai::format_fixed(2.8e293, 3), "2.8e+293"); // too long in fixed notation: never NUL bytes
  EXPECT_EQ(sgai::format_intervals({5, 1, 2, 3, 9, 8}), "1-3 5 8-9");
  EXPECT_EQ(sgai::format_intervals({}), "");
  EXPECT_EQ(sgai::format_intervals({7}), "7");
}

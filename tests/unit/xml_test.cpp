/* Golden XML for small fixtures, and the limits of what SimGrid XML can describe. */
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "generators/platform/legacy_xml.hpp"
#include "generators/platform/platform.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

using namespace sgai::platform;

namespace {

/** Compares with tests/fixtures/golden/<name>.xml; SGAI_UPDATE_GOLDEN=1 rewrites it. */
void check_golden(const std::string& name)
{
  Platform p       = generate(sgai::test::fixture("platforms/" + name + ".json"));
  std::string xml  = to_xml(p);
  auto golden_path = sgai::test::fixture("golden/" + name + ".xml");
  if (std::getenv("SGAI_UPDATE_GOLDEN"))
    sgai::write_file_atomically(golden_path, xml);
  std::string golden = sgai::read_text_file(golden_path);
  EXPECT_EQ(xml, golden) << "generated XML differs from " << golden_path
                         << " (run with SGAI_UPDATE_GOLDEN=1 after checking the change)";
}

} // namespace

TEST(XmlGolden, TinyFlat)
{
  check_golden("tiny_flat");
}

TEST(XmlGolden, TinyGpu)
{
  check_golden("tiny_gpu");
}

TEST(Xml, IsDeterministic)
{
  SGAI_REQUIRE_SHARED_DATA();
  Platform a = generate(sgai::test::hdeeprm_platform("mc2"));
  Platform b = generate(sgai::test::hdeeprm_platform("mc2"));
  EXPECT_EQ(to_xml(a), to_xml(b));
}

TEST(Xml, RefusesWhatSimGridXmlCannotDescribe)
{
  Platform gpu_tree = generate(sgai::test::fixture("platforms/tiny_fattree_gpu.json"));
  EXPECT_NE(xml_limitation(gpu_tree).find("has nodes of several hosts"), std::string::npos);
  EXPECT_NE(xml_limitation(generate("platforms/hgx-h100-cluster.json")).find("has nodes of several hosts"),
            std::string::npos);
  Platform levels = generate(sgai::test::fixture("platforms/tiny_fattree.json"));
  EXPECT_NE(xml_limitation(levels).find("levels with different links"), std::string::npos);
  std::ostringstream out;
  EXPECT_THROW(write_xml(levels, out), sgai::InputError);
  EXPECT_TRUE(out.str().empty());
  EXPECT_TRUE(xml_limitation(generate(sgai::test::fixture("platforms/tiny_torus.json"))).empty());
}

TEST(Xml, NoLegacyWattPerState)
{
  SGAI_REQUIRE_SHARED_DATA();
  std::string xml = to_xml(generate(sgai::test::hdeeprm_platform("learning")));
  EXPECT_EQ(xml.find("watt_per_state"), std::string::npos);
  EXPECT_NE(xml.find("wattage_per_state"), std::string::npos);
}

TEST(Hierarchy, ListsHostsOfEveryResource)
{
  Platform p = generate(sgai::test::fixture("platforms/tiny_gpu.json"));
  std::ostringstream out;
  write_hierarchy_json(p, out);
  std::string j = out.str();
  EXPECT_NE(j.find("\"sgai_hierarchy\": 1"), std::string::npos);
  EXPECT_NE(j.find("\"g-n1-gpu1\""), std::string::npos);
  EXPECT_NE(j.find("\"granularity\": \"processor\""), std::string::npos);
}

namespace {

size_t lines_of(const std::string& text)
{
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

/** The message of check_xml_wattage on the text, empty when it accepts it. */
std::string wattage_error(const std::string& text)
{
  try {
    check_xml_wattage(text, "p.xml");
  } catch (const sgai::InputError& e) {
    return e.what();
  }
  return "";
}

std::string one_host(const std::string& speed, const std::string& wattage)
{
  return "<platform version=\"4.1\">\n<zone id=\"z\" routing=\"Full\">\n  <host id=\"a\" speed=\"" + speed +
         "\">\n    <prop id=\"wattage_per_state\" value=\"" + wattage + "\"/>\n  </host>\n</zone>\n</platform>\n";
}

} // namespace

TEST(LegacyXml, NothingToDo)
{
  std::vector<std::string> notes;
  EXPECT_FALSE(translate_legacy_xml(one_host("1Gf", "1:2"), notes).has_value());
  EXPECT_TRUE(notes.empty());
}

TEST(LegacyXml, RenamesOutsideCommentsOnly)
{
  const std::string text = "<platform version=\"4\">\n<!-- <AS id=\"old\"> watt_per_state -->\n<AS id=\"z\">\n"
                           "<host id=\"h\" speed=\"1f\"><prop id=\"watt_per_state\" value=\"1:2\"/></host>\n"
                           "</AS>\n</platform>\n";
  std::vector<std::string> notes;
  auto out = translate_legacy_xml(text, notes);
  ASSERT_TRUE(out.has_value());
  EXPECT_NE(out->find("<!-- <AS id=\"old\"> watt_per_state -->"), std::string::npos) << *out;
  EXPECT_NE(out->find("<zone id=\"z\">"), std::string::npos);
  EXPECT_NE(out->find("\"wattage_per_state\""), std::string::npos);
  EXPECT_NE(std::find(notes.begin(), notes.end(), "1 x <AS -> <zone"), notes.end());
  std::vector<std::string> again;
  EXPECT_FALSE(translate_legacy_xml(*out, again).has_value()) << again.front();
}

TEST(LegacyXml, OccurrencesSharingAQuoteAreAllRenamed)
{
  // found by the platform_xml fuzz target: the second key starts at the first one's closing quote
  const std::string text = "<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">\n"
                           "<link id=\"l\" a=\"network/latency_factor\"network/latency_factor\" bandwidth=\"1GBps\"/>\n"
                           "</zone></platform>\n";
  std::vector<std::string> notes;
  auto out = translate_legacy_xml(text, notes);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->find("latency_factor"), std::string::npos) << *out;
  EXPECT_NE(std::find(notes.begin(), notes.end(), "2 x \"network/latency_factor\" -> \"network/latency-factor\""),
            notes.end())
      << notes.front();
  std::vector<std::string> again;
  EXPECT_FALSE(translate_legacy_xml(*out, again).has_value());
}

TEST(LegacyXml, SmpiOptionsIgnoredNetworkFactorsKept)
{
  // Batsim's graphene.xml: SimGrid 3.32 has no smpi/os nor smpi/or unless SMPI is initialised.
  const std::string text = "<platform version=\"4.1\">\n<config id=\"General\">\n"
                           "  <prop id=\"network/model\" value=\"SMPI\"/>\n"
                           "  <prop id=\"network/sender_gap\" value=\"0\"/>\n"
                           "<!--  <prop id=\"smpi/os\" value=\"1:2:3\"/> -->\n"
                           "  <prop id=\"smpi/os\" value=\"0:1:2\"/>\n"
                           "  <prop id='smpi/or' value=\"0:1:2\">\n  </prop>\n"
                           "  <prop id=\"smpi/bw_factor\" value=\"0:0.4\"/>\n"
                           "  <prop id=\"smpi/lat-factor\" value=\"0:1.3\"/>\n"
                           "  <prop id=\"smpi/IB-penalty-factors\" value=\"1;1;1\"/>\n"
                           "</config>\n<zone id=\"z\" routing=\"Full\">\n"
                           "  <host id=\"h\" speed=\"1f\"><prop id=\"smpi/os\" value=\"a host property\"/></host>\n"
                           "</zone>\n</platform>\n";
  std::vector<std::string> notes;
  auto out = translate_legacy_xml(text, notes);
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(lines_of(*out), lines_of(text)) << "line numbers must stay those of the file";
  EXPECT_EQ(out->find("id=\"smpi/os\" value=\"0:1:2\""), std::string::npos) << *out;
  EXPECT_EQ(out->find("smpi/or"), std::string::npos) << *out;
  EXPECT_EQ(out->find("network/sender_gap"), std::string::npos) << *out;
  EXPECT_NE(out->find("<!--  <prop id=\"smpi/os\" value=\"1:2:3\"/> -->"), std::string::npos) << *out;
  EXPECT_NE(out->find("\"smpi/bw-factor\" value=\"0:0.4\""), std::string::npos) << *out;
  EXPECT_NE(out->find("\"smpi/lat-factor\" value=\"0:1.3\""), std::string::npos) << *out;
  EXPECT_NE(out->find("smpi/IB-penalty-factors"), std::string::npos) << *out;
  EXPECT_NE(out->find("value=\"a host property\""), std::string::npos) << "only <config> options are options";
  EXPECT_NE(out->find("network/model"), std::string::npos);
  std::vector<std::string> expected = {"1 x \"smpi/bw_factor\" -> \"smpi/bw-factor\"",
                                       "dropped the option network/sender_gap (SimGrid 3.32 has none)",
                                       "ignored the SMPI options smpi/os, smpi/or (sgai runs no MPI code)"};
  EXPECT_EQ(notes, expected);
  std::vector<std::string> again;
  EXPECT_FALSE(translate_legacy_xml(*out, again).has_value());
}

TEST(LegacyXml, WattageChecked)
{
  EXPECT_EQ(wattage_error(one_host("1Gf", "1:2")), "");
  EXPECT_EQ(wattage_error(one_host("1Gf, 0.5Gf", "1:2:3, 1:1.5")), "");
  EXPECT_EQ(wattage_error(one_host("1Gf", "1:2, 1:1.5")),
            "p.xml: line 3: host 'a': 1 P-state (values of speed) but 2 wattage_per_state groups: SimGrid's energy "
            "plugin needs one group, idle:all_cores or idle:one_core:all_cores, per P-state");
  EXPECT_NE(
      wattage_error(one_host("1Gf, 2Gf", "1:2, 5")).find("line 3: host 'a': wattage_per_state group 2 ' 5' is not"),
      std::string::npos);
  EXPECT_NE(wattage_error(one_host("1Gf", "1:2:3:4")).find("group 1 '1:2:3:4'"), std::string::npos);
  // Batsim's energy_platform.xml: the first host in the file, and how many more.
  std::string two =
      "<zone id=\"z\" routing=\"Full\">\n"
      "<!-- <host id=\"c\" speed=\"1f\"><prop id=\"wattage_per_state\" value=\"1:2,1:2\"/></host> -->\n"
      "<cluster id=\"k\" prefix=\"k\" suffix=\"\" radical=\"0-3\" speed=\"1f, 2f\" bw=\"1Bps\" lat=\"0\">\n"
      "  <prop id=\"watt_per_state\" value=\"1:2\"/>\n</cluster>\n"
      "<host id=\"b\" speed=\"1f\"><prop id=\"wattage_per_state\" value=\"1:2,1:2\"/></host>\n"
      "<host_link id=\"b\" up=\"l\" down=\"l\"/>\n</zone>\n";
  EXPECT_NE(wattage_error(two).find("p.xml: line 3: cluster 'k': 2 P-states (values of speed) but 1 watt_per_state "
                                    "group: "),
            std::string::npos)
      << wattage_error(two);
  EXPECT_NE(wattage_error(two).find("(and 1 more like this)"), std::string::npos);
}

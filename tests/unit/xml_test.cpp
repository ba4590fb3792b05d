/* Golden XML for small fixtures, and the limits of what SimGrid XML can describe. */
#include "generators/platform/platform.hpp"
#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

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

//===- Cli.cpp - Command lines of the MLIR-free tools (CLI11) -------------===//
#include "tooling/support/Cli.h"

#include "tooling/support/Sizes.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <limits>

namespace dslc::tooling {

namespace {

/// The tool's name with its subcommand ("tuner run").
std::string fullName(const CLI::App &app) {
  std::string name = app.get_name();
  for (const CLI::App *p = app.get_parent(); p; p = p->get_parent())
    name = p->get_name() + " " + name;
  return name;
}

/// The (sub)command the arguments selected.
const CLI::App &selected(const CLI::App &app) {
  for (const CLI::App *sub : app.get_subcommands())
    return selected(*sub);
  return app;
}

} // namespace

int usageError(const CLI::App &app, const std::string &what) {
  std::fprintf(stderr, "%s: error: %s\nRun '%s --help' for the options.\n",
               fullName(app).c_str(), what.c_str(), fullName(app).c_str());
  return kUsageError;
}

std::optional<int>
parseCommandLine(CLI::App &app, int argc, char **argv,
                 const std::vector<std::string> &valueOptions) {
  // CLI11 takes the last argument first.
  std::vector<std::string> args;
  for (int i = argc - 1; i >= 1; --i)
    args.push_back(argv[i]);
  for (size_t i = args.size(); i-- > 1;) {
    bool takes = std::find(valueOptions.begin(), valueOptions.end(), args[i]) !=
                 valueOptions.end();
    if (takes) {
      args[i] += "=" + args[i - 1];
      args.erase(args.begin() + static_cast<long>(i) - 1);
    }
  }
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp &) {
    const CLI::App &sel = selected(app);
    std::string parents;
    for (const CLI::App *p = sel.get_parent(); p; p = p->get_parent())
      parents = p->get_name() + (parents.empty() ? "" : " " + parents);
    std::printf("%s", sel.help(parents).c_str());
    return 0;
  } catch (const CLI::CallForAllHelp &) {
    std::printf("%s", app.help("", CLI::AppFormatMode::All).c_str());
    return 0;
  } catch (const CLI::ParseError &e) {
    return usageError(selected(app), e.what());
  }
  return std::nullopt;
}

CLI::Option *addSize(CLI::App &app, const std::string &names, int64_t &target,
                     const std::string &help, int64_t minimum) {
  return app
      .add_option_function<std::string>(
          names,
          [&target, minimum, names](const std::string &text) {
            Expected<int64_t> v = parseSize(text);
            if (v && *v < minimum)
              throw CLI::ValidationError(
                  names, fmt::format("{} is below {}", text, minimum));
            if (!v)
              throw CLI::ValidationError(names, v.error());
            target = *v;
          },
          help)
      ->type_name("SIZE");
}

CLI::Option *addCount(CLI::App &app, const std::string &names, int &target,
                      const std::string &help, int minimum) {
  return app
      .add_option_function<std::string>(
          names,
          [&target, minimum, names](const std::string &text) {
            Expected<int64_t> v = parseSize(text);
            if (!v)
              throw CLI::ValidationError(names, v.error());
            if (*v < minimum || *v > std::numeric_limits<int>::max())
              throw CLI::ValidationError(
                  names, fmt::format("{} is outside {}..{}", text, minimum,
                                     std::numeric_limits<int>::max()));
            target = static_cast<int>(*v);
          },
          help)
      ->type_name("N");
}

CLI::Option *addSizeList(CLI::App &app, const std::string &names,
                         std::vector<int64_t> &target, const std::string &help,
                         int64_t minimum) {
  return app
      .add_option_function<std::vector<std::string>>(
          names,
          [&target, minimum, names](const std::vector<std::string> &texts) {
            target.clear();
            for (const std::string &text : texts) {
              Expected<std::vector<int64_t>> v = parseSizeList(text, minimum);
              if (!v)
                throw CLI::ValidationError(names, v.error());
              target.insert(target.end(), v->begin(), v->end());
            }
          },
          help)
      ->type_name("SIZES");
}

CLI::Option *addNumber(CLI::App &app, const std::string &names, double &target,
                       const std::string &help) {
  return app
      .add_option_function<std::string>(
          names,
          [&target, names](const std::string &text) {
            Expected<double> v = parseNumber(text);
            if (!v)
              throw CLI::ValidationError(names, v.error());
            target = *v;
          },
          help)
      ->type_name("X");
}

CLI::Option *addChoice(CLI::App &app, const std::string &names,
                       std::string &target,
                       const std::vector<std::string> &choices,
                       const std::string &help) {
  return app.add_option(names, target, help)
      ->check(CLI::IsMember(choices).description(""))
      ->type_name(fmt::format("{}", fmt::join(choices, "|")));
}

} // namespace dslc::tooling

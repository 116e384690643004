// Op registration and kernel lookup. As in the device flow, the op's schema comes
// from the shape function's registration and the kernel is found by name: every way C++
// passes the schema's parameters (by value, const&, &) is a candidate symbol, looked up with
// dlsym; none or more than one is an error naming the signatures.
#include <dlfcn.h>
#include <fmt/format.h>

#include <cstring>
#include <map>
#include <utility>
#include <stdexcept>

#include <torch/torch.h>
#include <torchneuron/register.h>

#include "firmware/torch/containment.h"
#include "firmware/torch/registry.h"

namespace torch::npusim_op {

namespace {
std::map<std::string, OpDef>& registry() {
  static std::map<std::string, OpDef> m;
  return m;
}
std::string sub_code(size_t i) {
  if (i == 0) return "S_";
  std::string s;
  size_t n = i - 1;
  const char* digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  do {
    s.insert(s.begin(), digits[n % 36]);
    n /= 36;
  } while (n);
  return "S" + s + "_";
}
}  // namespace

std::string mangle(const char* name, const std::vector<std::string>& params) {
  std::string out = fmt::format("_Z{}{}", std::strlen(name), name);
  std::vector<std::string> subs;  // substitution candidates, in order of appearance
  auto find = [&](const std::string& k) -> int {
    for (size_t i = 0; i < subs.size(); ++i)
      if (subs[i] == k) return static_cast<int>(i);
    return -1;
  };
  for (const auto& p : params) {
    if (p.size() == 1) {  // a builtin by value: no substitution candidate
      out += p;
      continue;
    }
    // "<R><K> ns cls" or "<R><K> code"
    const auto sp1 = p.find(' ');
    const std::string quals = p.substr(0, sp1);
    const auto sp2 = p.find(' ', sp1 + 1);
    const bool builtin = sp2 == std::string::npos;
    const std::string ns = builtin ? "" : p.substr(sp1 + 1, sp2 - sp1 - 1);
    const std::string cls = builtin ? "" : p.substr(sp2 + 1);
    const std::string full = builtin ? p.substr(sp1 + 1) : ns + "::" + cls;
    const bool ref = quals.find('R') != std::string::npos, cst = quals.find('K') != std::string::npos;
    const std::string kc = "K" + full, kr = "R" + (cst ? kc : full);
    if (ref && find(kr) >= 0) {
      out += sub_code(static_cast<size_t>(find(kr)));
      continue;
    }
    std::string enc;
    if (cst && find(kc) >= 0) {
      enc = sub_code(static_cast<size_t>(find(kc)));
    } else {
      std::string base;
      if (builtin) {
        base = full;
      } else if (find(full) >= 0) {
        base = sub_code(static_cast<size_t>(find(full)));
      } else {
        base = "N" + (find(ns) >= 0 ? sub_code(static_cast<size_t>(find(ns))) : fmt::format("{}{}", ns.size(), ns));
        if (find(ns) < 0) subs.push_back(ns);
        base += fmt::format("{}{}E", cls.size(), cls);
        subs.push_back(full);
      }
      enc = base;
      if (cst) {
        enc = "K" + base;
        subs.push_back(kc);
      }
    }
    if (ref) {
      enc = "R" + enc;
      subs.push_back(kr);
    }
    out += enc;
  }
  if (params.empty()) out += "v";
  return out;
}

std::string form_symbol(const OpDef& d, const std::vector<uint8_t>& pass) {
  std::vector<std::string> ps;
  for (size_t i = 0; i < d.param_mangled.size(); ++i) {
    const std::string& m = d.param_mangled[i];
    const uint8_t k = i < pass.size() ? pass[i] : static_cast<uint8_t>(kByValue);
    if (k == kByValue) ps.push_back(m.size() == 1 ? m : " " + m);
    else ps.push_back(std::string(k == kConstRef ? "RK " : "R ") + m);
  }
  return mangle(d.kernel.c_str(), ps);
}

std::string form_signature(const OpDef& d, const std::vector<uint8_t>& pass) {
  std::string s = d.kernel + "(";
  for (size_t i = 0; i < d.param_cpp.size(); ++i) {
    const uint8_t k = i < pass.size() ? pass[i] : static_cast<uint8_t>(kByValue);
    s += (i ? ", " : "") + std::string(k == kConstRef ? "const " : "") + d.param_cpp[i] +
         (k == kByValue ? "" : "&");
  }
  return s + ")";
}

void resolve_kernel(OpDef& d) {
  struct Hit {
    const KernelForm* form;
    void* fn;
    std::string symbol;
  };
  // A plugin's kernel is looked up in the plugin first: a kernel of the same name linked into
  // npusim (or loaded earlier) comes first in the global scope, and would run instead.
  void* own = nullptr;
  Dl_info info{};
  if (!d.builtin && d.shape != nullptr && dladdr(d.shape, &info) != 0 && info.dli_fname != nullptr)
    own = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  std::vector<Hit> hits;
  for (const auto& f : d.forms) {
    const std::string sym = form_symbol(d, f.pass);
    bool seen = false;
    for (const auto& h : hits) seen = seen || h.symbol == sym;
    if (seen) continue;
    void* fn = own != nullptr ? dlsym(own, sym.c_str()) : nullptr;
    if (fn == nullptr) fn = dlsym(RTLD_DEFAULT, sym.c_str());
    if (fn != nullptr) hits.push_back(Hit{&f, fn, sym});
  }
  if (own != nullptr) dlclose(own);
  const std::string shape = form_signature(d, d.shape_pass);
  if (hits.empty()) {
    // A kernel of that name whose scalar parameters have other types (float where the shape
    // function has double, say): found with the types changed, one parameter or all scalars at
    // once, and named as the cause.
    static const std::pair<const char*, const char*> kScalars[] = {
        {"d", "double"}, {"f", "float"}, {"l", "int64_t"}, {"i", "int"}, {"b", "bool"}, {"c10 Scalar", "c10::Scalar"}};
    std::vector<size_t> scalars;
    for (size_t i = 0; i < d.kinds.size(); ++i)
      if (d.kinds[i] == 's') scalars.push_back(i);
    for (size_t which = 0; which <= scalars.size() && !scalars.empty(); ++which) {  // scalars.size(): all
      for (const auto& [m, cpp] : kScalars) {
        OpDef alt = d;
        bool changed = false;
        for (size_t j = 0; j < scalars.size(); ++j) {
          if (which != scalars.size() && j != which) continue;
          changed = changed || alt.param_mangled[scalars[j]] != m;
          alt.param_mangled[scalars[j]] = m;
          alt.param_cpp[scalars[j]] = cpp;
        }
        if (!changed) continue;
        for (const auto& f : d.forms) {
          const std::string sym = form_symbol(alt, f.pass);
          if (dlsym(RTLD_DEFAULT, sym.c_str()) == nullptr) {
            void* h = !d.builtin && d.shape != nullptr && dladdr(d.shape, &info) != 0 && info.dli_fname != nullptr
                          ? dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD)
                          : nullptr;
            const bool in_plugin = h != nullptr && dlsym(h, sym.c_str()) != nullptr;
            if (h != nullptr) dlclose(h);
            if (!in_plugin) continue;
          }
          std::string diff;
          for (size_t i = 0; i < d.param_cpp.size(); ++i)
            if (alt.param_cpp[i] != d.param_cpp[i])
              diff += fmt::format("{}parameter {} is {} in the kernel and {} in the shape function",
                                  diff.empty() ? "" : ", ", i + 1, alt.param_cpp[i], d.param_cpp[i]);
          throw std::invalid_argument(fmt::format(
              "op '{}': the kernel '{}' is {}, but the shape function's schema is {}: {}; give the kernel and "
              "the shape function the same parameter types",
              d.name, d.kernel, form_signature(alt, f.pass), shape.substr(d.kernel.size()), diff));
        }
      }
    }
    throw std::invalid_argument(fmt::format(
        "op '{}': no kernel function '{}' for the shape function's schema {} (looked for {} "
        "form(s) of passing its parameters: by value, const&, &; e.g. {} = {}): the kernel file "
        "must be built into the library (npusim op build --compute) or linked into npusim",
        d.name, d.kernel, shape.substr(d.kernel.size()), d.forms.size(), form_signature(d, d.forms.front().pass),
        form_symbol(d, d.forms.front().pass)));
  }
  if (hits.size() > 1) {
    std::string list;
    for (const auto& h : hits)
      list += fmt::format("{}{} ({})", list.empty() ? "" : " and ", form_signature(d, h.form->pass), h.symbol);
    throw std::invalid_argument(fmt::format(
        "op '{}': the kernel '{}' is ambiguous for the schema {}: {} all exist; keep one", d.name,
        d.kernel, shape.substr(d.kernel.size()), list));
  }
  d.kernel_fn = hits[0].fn;
  d.kernel_invoker = hits[0].form->invoker;
  d.kernel_pass = hits[0].form->pass;
  d.mangled = hits[0].symbol;
}

namespace {
Loading* g_loading = nullptr;
std::vector<std::string>& builtin_errors() {
  static std::vector<std::string> e;
  return e;
}
void registration_error(const std::string& msg) {
  if (g_loading) g_loading->errors.push_back(msg);
  else builtin_errors().push_back(msg);
}
// "library lib at shape.cpp:12 in ./libx.so"
std::string place(const OpDef& d) {
  return fmt::format("library {} at {} in {}", d.library, d.source.empty() ? "?" : d.source,
                     d.module.empty() ? "?" : d.module);
}
}  // namespace

void set_loading(Loading* l) { g_loading = l; }
std::vector<std::string> take_builtin_errors() { return std::exchange(builtin_errors(), {}); }

void register_op(OpDef def) {
  def.builtin = g_loading == nullptr;
  if (g_loading) {
    def.module = g_loading->path;
    ++g_loading->attempts;
  } else {
    Dl_info info{};
    def.module = def.shape && dladdr(def.shape, &info) && info.dli_fname ? info.dli_fname : "the executable";
  }
  auto it = registry().find(def.name);
  if (it != registry().end()) {
    const OpDef& old = it->second;
    if (old.builtin && !def.builtin) {
      if (!g_loading->allow_shadowing) {
        registration_error(fmt::format("op '{}' ({}) has the name of a built-in op ({}); to replace the built-in "
                                       "op, run with --allow-shadowing",
                                       def.name, place(def), place(old)));
        return;
      }
      g_loading->warnings.push_back(fmt::format("op '{}' ({}) shadows the built-in op of that name ({}) "
                                                "(--allow-shadowing)",
                                                def.name, place(def), place(old)));
    } else {
      registration_error(fmt::format("op '{}' is registered twice: by {} and by {}", def.name, place(old), place(def)));
      return;
    }
  }
  if (g_loading) g_loading->ops.push_back(def.name);
  const std::string n = def.name;
  registry()[n] = std::move(def);
}
const OpDef* find_op(const std::string& name) {
  auto it = registry().find(name);
  if (it != registry().end()) return &it->second;
  // The name as Python spells it (torch.ops.LIB.OP: "LIB.OP") or as C++ does ("LIB::OP").
  const size_t dot = name.rfind('.'), colons = name.rfind("::");
  const size_t sep = dot != std::string::npos ? dot : colons;
  if (sep == std::string::npos || sep == 0) return nullptr;
  const std::string lib = name.substr(0, sep), op = name.substr(sep + (dot != std::string::npos ? 1 : 2));
  it = registry().find(op);
  return it != registry().end() && it->second.library == lib ? &it->second : nullptr;
}

std::string no_op_message(const std::string& name) {
  std::string known;
  for (const auto& [n, d] : registry()) known += (known.empty() ? "" : ", ") + n;
  const size_t dot = name.rfind('.'), colons = name.rfind("::");
  const size_t sep = dot != std::string::npos ? dot : colons;
  std::string lib, op = name;
  if (sep != std::string::npos && sep != 0) {
    lib = name.substr(0, sep);
    op = name.substr(sep + (dot != std::string::npos ? 1 : 2));
  }
  std::string why;
  const auto it = registry().find(op);
  if (!lib.empty() && it != registry().end())
    why = fmt::format("; '{}' is an op of the library '{}', not '{}'", op, it->second.library, lib);
  else
    why = fmt::format("; an op of a library of custom ops needs that library loaded: `npusim run --plugin "
                      "lib{}.so` (a sweep: `plugins:` or `sweep --plugin`; Python: npusim.load_library)",
                      lib.empty() ? "NAME" : lib);
  return fmt::format("no torch op '{}' (registered: {}){}", name, known, why);
}
std::vector<const OpDef*> ops() {
  std::vector<const OpDef*> v;
  for (const auto& [n, d] : registry()) v.push_back(&d);
  return v;
}
bool register_library(const char* name, void (*init)(Library&), long long stack_size, int multicore,
                      const char* file, int line) {
  Library lib(name, stack_size, multicore);
  // A static initialiser must not throw (the loader would end in std::terminate): the error is
  // kept for the plugin loader instead.
  try {
    init(lib);
  } catch (const std::exception& e) {
    registration_error(fmt::format("NEURON_LIBRARY({}) at {}:{} threw {}: {}", name, file, line,
                                   npusim::torchrt::current_exception_type(), e.what()));
  } catch (...) {
    const std::string type = npusim::torchrt::current_exception_type();
    registration_error(fmt::format("NEURON_LIBRARY({}) at {}:{} threw an exception of type {}", name, file, line,
                                   type.empty() ? "unknown" : type));
  }
  return true;
}

}  // namespace torch::npusim_op

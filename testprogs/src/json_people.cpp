/*
 * json_people: real header-only C++ at -O2: nlohmann::json (Debian's
 * nlohmann-json3-dev) parses a document, counts its keys, converts its
 * people into structs and sums its numbers, for stepping through
 * inlined code.
 *
 * - to_person is inlined into main; g++ -O2 gives its lines rows
 *   interleaved with the rows of the library code inlined into it, with
 *   discriminators, so that the line an address has depends on GDB's
 *   exact rules for the line program (a row right after an ignored row
 *   of another file is kept: handle_set_file). next from to_person's
 *   first line stops at its second (json_people.cpp:50), in the
 *   inlined frame.
 * Root cause: none (exits 0)
 * Symptom:    prints "11 2 96.25 160" and the key counts, and exits with status 0
 * Build (in testprogs/src):
 *             g++ -O2 -g -o ../build/json_people-O2 json_people.cpp
 */
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using json = nlohmann::json;

struct Person {
	std::string name;
	int age;
	std::vector<std::string> tags;
};

static int count_keys(const json &j, std::map<std::string, int> &hist)
{
	int n = 0;
	if (j.is_object()) {
		for (auto it = j.begin(); it != j.end(); ++it) {
			hist[it.key()] += 1;
			n += 1 + count_keys(it.value(), hist);
		}
	} else if (j.is_array()) {
		for (const auto &e : j)
			n += count_keys(e, hist);
	}
	return n;
}

static Person to_person(const json &j)
{
	Person p;
	p.name = j.at("name").get<std::string>();
	p.age = j.value("age", -1);
	for (const auto &t : j["tags"])
		p.tags.push_back(t.get<std::string>());
	return p;
}

static double sum_numbers(const json &j)
{
	double s = 0;
	if (j.is_number())
		return j.get<double>();
	if (!j.is_structured())
		return 0;
	for (const auto &e : j)
		s += sum_numbers(e);
	return s;
}

int main(int argc, char **argv)
{
	const char *text = R"({"people":[{"name":"Ada","age":36,"tags":["math","engine"]},
      {"name":"Linus","age":54,"tags":["kernel"]}], "version": 3, "pi": 3.25, "ok": true, "none": null})";
	json doc = json::parse(text);
	std::map<std::string, int> hist;
	int keys = count_keys(doc, hist);
	std::vector<Person> people;
	for (const auto &pj : doc["people"])
		people.push_back(to_person(pj));
	double total = sum_numbers(doc);
	doc["count"] = keys;
	std::string out = doc.dump();
	std::cout << keys << " " << people.size() << " " << total << " " << out.size() << "\n";
	for (auto &kv : hist)
		std::cout << kv.first << "=" << kv.second << "\n";
	return argc > 5 ? 1 : 0;
}

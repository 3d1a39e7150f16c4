"""Renders the reference of cardreader.v1 (Docs/cardreader-v1.md) from the .proto's own
comments, as protoc parsed them (a descriptor set with source info, from grpcio-tools'
protoc): every RPC, message, field and enum value, in the file's order.

Usage: proto_reference.py DESCRIPTOR_SET OUTPUT.md
"""
import sys

from google.protobuf import descriptor_pb2

SCALARS = {
    1: "double", 2: "float", 3: "int64", 4: "uint64", 5: "int32", 8: "bool", 9: "string", 12: "bytes",
    13: "uint32", 17: "sint32", 18: "sint64",
}


def main(descriptor_path, output_path):
    files = descriptor_pb2.FileDescriptorSet()
    files.ParseFromString(open(descriptor_path, "rb").read())
    (proto,) = [f for f in files.file if f.name == "cardreader/v1/readers.proto"]
    comments = {tuple(location.path): location for location in proto.source_code_info.location}

    undocumented = []

    def comment(*path, what=None):
        location = comments.get(tuple(path))
        text = (location.leading_comments or location.trailing_comments) if location else ""
        if not text.strip() and what:
            undocumented.append(what)
        return " ".join(line.strip() for line in text.strip().splitlines())

    def type_name(field, package="." + proto.package + "."):
        if field.type_name:
            name = field.type_name.removeprefix(package)
            return f"[`{name}`](#{name.lower().replace('.', '')})"
        return f"`{SCALARS.get(field.type, '?')}`"

    lines = [
        "# cardreader.v1 reference",
        "",
        "The contract of `cardreaderd` (`Daemon/Proto/cardreader/v1/readers.proto`), rendered from",
        "the file's own comments by `Daemon/Scripts/generate`: edit the `.proto`, not this page.",
        "How a backend in another language starts is in [cardreaderd.md](cardreaderd.md).",
        "",
    ]
    header = comments.get((12,))  # the file's syntax statement carries the file's comment
    if header:
        for block in list(header.leading_detached_comments) + [header.leading_comments]:
            # Paragraphs as paragraphs; a line that starts with two spaces is a list item.
            for paragraph in block.strip().split("\n\n"):
                items = []
                for line in paragraph.splitlines():
                    if line.startswith("   ") and items:
                        items.append("- " + line.strip())
                    elif items and items[-1].startswith("- "):
                        items[-1] += " " + line.strip()
                    elif items:
                        items[-1] += " " + line.strip()
                    else:
                        items.append(line.strip())
                lines += items + [""]
    for s_index, service in enumerate(proto.service):
        lines += [f"## Service `{service.name}`", "", comment(6, s_index), "", "| RPC | request | response | what it does |",
                  "|---|---|---|---|"]
        for m_index, method in enumerate(service.method):
            stream = "stream " if method.server_streaming else ""
            request = method.input_type.removeprefix("." + proto.package + ".")
            response = method.output_type.removeprefix("." + proto.package + ".")
            lines.append(
                f"| `{method.name}` | [`{request}`](#{request.lower()}) | {stream}[`{response}`](#{response.lower()}) | "
                f"{comment(6, s_index, 2, m_index, what=method.name)} |")
        lines.append("")

    lines += ["## Messages", ""]

    def message(descriptor, path, prefix=""):
        name = prefix + descriptor.name
        out = [f"### {name}", ""]
        if comment(*path):
            out += [comment(*path), ""]
        if descriptor.field:
            out += ["| field | number | type | meaning |", "|---|---|---|---|"]
            for f_index, field in enumerate(descriptor.field):
                label = "repeated " if field.label == 3 else ("optional " if field.proto3_optional else "")
                oneof = ""
                if field.HasField("oneof_index") and not field.proto3_optional:
                    oneof = f" (one of `{descriptor.oneof_decl[field.oneof_index].name}`)"
                out.append(f"| `{field.name}` | {field.number} | {label}{type_name(field)} | "
                           f"{comment(*path, 2, f_index, what=name + '.' + field.name)}{oneof} |")
            out.append("")
        for e_index, enum in enumerate(descriptor.enum_type):
            out += enumeration(enum, path + [4, e_index], name + ".")
        for n_index, nested in enumerate(descriptor.nested_type):
            out += message(nested, path + [3, n_index], name + ".")
        return out

    def enumeration(enum, path, prefix=""):
        out = [f"### {prefix}{enum.name}", "", comment(*path), "", "| value | number | meaning |", "|---|---|---|"]
        for v_index, value in enumerate(enum.value):
            out.append(f"| `{value.name}` | {value.number} | {comment(*path, 2, v_index, what=prefix + enum.name + '.' + value.name)} |")
        return out + [""]

    for m_index, descriptor in enumerate(proto.message_type):
        lines += message(descriptor, [4, m_index])
    for e_index, enum in enumerate(proto.enum_type):
        lines += enumeration(enum, [5, e_index])
    while lines and lines[-1] == "":
        lines.pop()
    if undocumented:
        sys.exit("readers.proto: document " + ", ".join(undocumented))
    open(output_path, "w").write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])

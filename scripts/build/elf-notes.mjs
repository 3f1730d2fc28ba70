// Why the SEA build used to print nine "Can't find string offset for section name '.note.100'"
// warnings: Node's official Linux binaries are built with annobin, which leaves build-attribute
// notes (type 0x100, "OPEN") in a non-loaded `.gnu.build.attributes` section. postject's LIEF
// reads every SHT_NOTE section, copies some of those notes into the loaded PT_NOTE segment it
// rebuilds around our blob (garbling one of them), and warns once per copy because it cannot
// name the sections it makes for them. The notes only serve build-policy checkers (annocheck);
// nothing reads them at run time. Re-typing the section as plain data keeps its bytes but
// keeps LIEF away from it: no warnings, and no stray notes in the executable's loaded segment.

const SHT_PROGBITS = 1;
const SHT_NOTE = 7;
const BUILD_ATTRIBUTES = '.gnu.build.attributes';

/**
 * Re-types the `.gnu.build.attributes` note section of a 64-bit little-endian ELF image in
 * place. Returns whether it did: other formats (Mach-O, PE) and binaries built without
 * annobin are left untouched.
 */
export function retypeBuildAttributeNotes(image) {
  const isElf64Le = image.length > 0x40 && image.readUInt32BE(0) === 0x7f454c46 && image[4] === 2 && image[5] === 1;
  if (!isElf64Le) return false;
  const sectionTable = Number(image.readBigUInt64LE(0x28));
  const entrySize = image.readUInt16LE(0x3a);
  const count = image.readUInt16LE(0x3c);
  const namesIndex = image.readUInt16LE(0x3e);
  if (sectionTable === 0 || namesIndex >= count || sectionTable + count * entrySize > image.length) return false;
  const header = (i) => sectionTable + i * entrySize;
  const names = Number(image.readBigUInt64LE(header(namesIndex) + 0x18));
  for (let i = 0; i < count; i++) {
    const at = names + image.readUInt32LE(header(i));
    const name = image.toString('latin1', at, image.indexOf(0, at));
    if (name === BUILD_ATTRIBUTES && image.readUInt32LE(header(i) + 4) === SHT_NOTE) {
      image.writeUInt32LE(SHT_PROGBITS, header(i) + 4);
      return true;
    }
  }
  return false;
}

#!/usr/bin/perl
# The seed's own repair, as a baseline for benches/compare.sh: reads FILE (or standard input)
# as raw bytes and writes, line by line, every match of $UTF8_double_encoded replaced by
# decode_double_encoded of it, to OUT (or standard output).
#
# $UTF8_double_encoded, decode_double_encoded and the `while (<$fh>)` loop are copied verbatim
# from the seed of this project (/work/shared/seeds/002_eabc159d42347691.txt), public code
# written and shared by Christian Hansen (chansen). Only the opening of the handles is ours, with
# `:raw` as the seed's comment asks ("following assumes $fh returns octets").
#
# Usage: seed_repair.pl [FILE [OUT]]
use strict;
use warnings;

# matches a "double" encoded UTF-8 sequence within the range U+0000 - U+10FFFF
my $UTF8_double_encoded = qr/
    \xC3 (?: [\x82-\x9F] \xC2 [\x80-\xBF]                                    # U+0080 - U+07FF
           |  \xA0       \xC2 [\xA0-\xBF] \xC2 [\x80-\xBF]                   # U+0800 - U+0FFF
           | [\xA1-\xAC] \xC2 [\x80-\xBF] \xC2 [\x80-\xBF]                   # U+1000 - U+CFFF
           |  \xAD       \xC2 [\x80-\x9F] \xC2 [\x80-\xBF]                   # U+D000 - U+D7FF
           | [\xAE-\xAF] \xC2 [\x80-\xBF] \xC2 [\x80-\xBF]                   # U+E000 - U+FFFF
           |  \xB0       \xC2 [\x90-\xBF] \xC2 [\x80-\xBF] \xC2 [\x80-\xBF]  # U+010000 - U+03FFFF
           | [\xB1-\xB3] \xC2 [\x80-\xBF] \xC2 [\x80-\xBF] \xC2 [\x80-\xBF]  # U+040000 - U+0FFFFF
           |  \xB4       \xC2 [\x80-\x8F] \xC2 [\x80-\xBF] \xC2 [\x80-\xBF]  # U+100000 - U+10FFFF
          )
/x;

sub decode_double_encoded($) {
    local $_ = shift;
    s/[\xC2-\xC3]//g;
    s/\A(.)/chr(0xC0 | (ord($1) & 0x3F))/e;
    $_;
}

# --- handles (not from the seed) ---
my $fh = \*STDIN;
my $output = \*STDOUT;
if (@ARGV) {
    open($fh, '<:raw', $ARGV[0]) or die "$ARGV[0]: $!\n";
}
if (@ARGV > 1) {
    open($output, '>:raw', $ARGV[1]) or die "$ARGV[1]: $!\n";
}
binmode($fh, ':raw');
binmode($output, ':raw');

# following assumes $fh returns octets (binmode() / ":raw")

while (<$fh>) {

    s/($UTF8_double_encoded)/decode_double_encoded($1)/geo;

    print {$output} $_;

}

close($output) or die "write: $!\n";

#!/usr/bin/perl
# The seed's own detector, as a baseline for benches/compare.sh: counts the matches of
# $UTF8_double_encoded in FILE, read as raw bytes, the way looks_like_double_encoded_utf8 does
# for a byte string (`() = $_[0] =~ /$UTF8_double_encoded/og`).
#
# The regular expressions and looks_like_double_encoded_utf8 below are copied verbatim from the
# seed of this project (/work/shared/seeds/002_eabc159d42347691.txt), public code written and
# shared by Christian Hansen (chansen). Only the driver at the bottom is ours: it calls the
# function once per line (the seed's repair loop also works line by line), so memory stays
# bounded on gigabyte files; no match can span a newline, so the total is the same as for the
# whole file at once.
#
# Usage: seed_count.pl FILE            prints the number of matches
#        seed_count.pl --lines FILE    prints the numbers of the lines that match (for checks)
use strict;
use warnings;
use Carp qw(croak);

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

# matches a well-formed UTF-8 encoded sequence within the range U+0080 - U+10FFFF
my $UTF8 = qr/
    (?: [\xC2-\xDF] [\x80-\xBF]                           # U+0080 - U+07FF
      |  \xE0       [\xA0-\xBF] [\x80-\xBF]               # U+0800 - U+0FFF
      | [\xE1-\xEC] [\x80-\xBF] [\x80-\xBF]               # U+1000 - U+CFFF
      |  \xED       [\x80-\x9F] [\x80-\xBF]               # U+D000 - U+D7FF
      | [\xEE-\xEF] [\x80-\xBF] [\x80-\xBF]               # U+E000 - U+FFFF
      |  \xF0       [\x90-\xBF] [\x80-\xBF] [\x80-\xBF]   # U+010000 - U+03FFFF
      | [\xF1-\xF3] [\x80-\xBF] [\x80-\xBF] [\x80-\xBF]   # U+040000 - U+0FFFFF
      |  \xF4       [\x80-\x8F] [\x80-\xBF] [\x80-\xBF]   # U+100000 - U+10FFFF
    )
/x;

sub looks_like_double_encoded_utf8 {

    @_ == 1 || croak(q/Usage: looks_like_double_encoded_utf8(string)/);

    my $count = do {

        if (&utf8::is_utf8) {

            () = $_[0] =~ /$UTF8/og;

        }

        else {

            () = $_[0] =~ /$UTF8_double_encoded/og;

        }

    };

    return $count;

}

# --- driver (not from the seed) ---
my $lines = @ARGV && $ARGV[0] eq '--lines' ? shift @ARGV : undef;
@ARGV == 1 or die "usage: $0 [--lines] FILE\n";
open(my $fh, '<:raw', $ARGV[0]) or die "$ARGV[0]: $!\n";
my $total = 0;
while (<$fh>) {
    my $n = looks_like_double_encoded_utf8($_);
    print "$.\n" if $lines && $n;
    $total += $n;
}
close($fh);
print "$total\n" unless $lines;

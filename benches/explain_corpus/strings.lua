-- The explain corpus's second Lua workload (our own): string building, pattern matching,
-- string.format and table sorting of strings; prints a checksum.
local words = {}
for i = 1, 6000 do words[i] = string.format("w%05x_%d", (i * 7919) % 65521, i % 37) end
table.sort(words)
local s = table.concat(words, " ")
local n, acc = 0, 0
for w, d in s:gmatch("w(%x+)_(%d+)") do n = n + 1; acc = (acc + tonumber(w, 16) * tonumber(d)) % 1000003 end
local up = s:upper():gsub("W", "v")
local count = select(2, up:gsub("_1", "")) 
local rev = {}
for i = 1, #words, 3 do rev[#rev + 1] = words[i]:reverse():rep(2) end
print("checksum", n, acc, count, #table.concat(rev))

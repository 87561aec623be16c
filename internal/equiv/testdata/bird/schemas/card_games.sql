CREATE TABLE cards
(
    id INTEGER
        primary key,
    artist TEXT,
    asciiName TEXT,
    availability TEXT,
    borderColor TEXT,
    cardKingdomFoilId TEXT,
    cardKingdomId TEXT,
    colorIdentity TEXT,
    colorIndicator TEXT,
    colors TEXT,
    convertedManaCost REAL,
    duelDeck TEXT,
    edhrecRank INTEGER,
    faceConvertedManaCost REAL,
    faceName TEXT,
    flavorName TEXT,
    flavorText TEXT,
    frameEffects TEXT,
    frameVersion TEXT,
    hand TEXT,
    hasAlternativeDeckLimit INTEGER,
    hasContentWarning INTEGER,
    hasFoil INTEGER,
    hasNonFoil INTEGER,
    isAlternative INTEGER,
    isFullArt INTEGER,
    isOnlineOnly INTEGER,
    isOversized INTEGER,
    isPromo INTEGER,
    isReprint INTEGER,
    isReserved INTEGER,
    isStarter INTEGER,
    isStorySpotlight INTEGER,
    isTextless INTEGER,
    isTimeshifted INTEGER,
    keywords TEXT,
    layout TEXT,
    leadershipSkills TEXT,
    life TEXT,
    loyalty TEXT,
    manaCost TEXT,
    mcmId TEXT,
    mcmMetaId TEXT,
    mtgArenaId TEXT,
    mtgjsonV4Id TEXT,
    mtgoFoilId TEXT,
    mtgoId TEXT,
    multiverseId TEXT,
    name TEXT,
    number TEXT,
    originalReleaseDate TEXT,
    originalText TEXT,
    originalType TEXT,
    otherFaceIds TEXT,
    power TEXT,
    printings TEXT,
    promoTypes TEXT,
    purchaseUrls TEXT,
    rarity TEXT,
    scryfallId TEXT,
    scryfallIllustrationId TEXT,
    scryfallOracleId TEXT,
    setCode TEXT,
    side TEXT,
    subtypes TEXT,
    supertypes TEXT,
    tcgplayerProductId TEXT,
    text TEXT,
    toughness TEXT,
    type TEXT,
    types TEXT,
    uuid TEXT,
    variations TEXT,
    watermark TEXT
);

CREATE TABLE foreign_data
(
    id INTEGER
        primary key,
    flavorText TEXT,
    language TEXT,
    multiverseid INTEGER,
    name TEXT,
    text TEXT,
    type TEXT,
    uuid TEXT,
    foreign key (uuid) references cards (uuid)
);

CREATE TABLE legalities
(
    id INTEGER
        primary key,
    format TEXT,
    status TEXT,
    uuid TEXT,
    foreign key (uuid) references cards (uuid)
);

CREATE TABLE sets
(
    id INTEGER
        primary key,
    baseSetSize INTEGER,
    block TEXT,
    booster TEXT,
    code TEXT,
    isFoilOnly INTEGER,
    isForeignOnly INTEGER,
    isNonFoilOnly INTEGER,
    isOnlineOnly INTEGER,
    isPartialPreview INTEGER,
    keyruneCode TEXT,
    mcmId INTEGER,
    mcmIdExtras INTEGER,
    mcmName TEXT,
    mtgoCode TEXT,
    name TEXT,
    parentCode TEXT,
    releaseDate DATE,
    tcgplayerGroupId INTEGER,
    totalSetSize INTEGER,
    type TEXT
);

CREATE TABLE set_translations
(
    id INTEGER
        primary key,
    language TEXT,
    setCode TEXT,
    translation TEXT,
    foreign key (setCode) references sets (code)
);

CREATE TABLE rulings
(
    id INTEGER
        primary key,
    date DATE,
    text TEXT,
    uuid TEXT,
    foreign key (uuid) references cards (uuid)
);

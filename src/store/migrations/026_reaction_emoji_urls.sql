-- Custom emoji reactions (Misskey, Akkoma): such an emoji is named `shortcode@host` (the host of its image, as
-- Akkoma names it) and its image URL is kept on the reaction; Unicode reactions have none.
ALTER TABLE status_reactions ADD COLUMN emoji_url text;
